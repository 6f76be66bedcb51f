// The gateway payloads discord.js builds messages and interactions from, checked and repaired before
// it reads them. discord.js trusts Discord's shapes: an explicit null where it expects an object or
// an array (`message_reference: null`, `embeds: null`) or a missing `entitlements` throws inside
// it, out of the adapter's reach; a null `type` makes a message a system message, a missing
// `content` reaches the adapter as null. So such nulls are removed (discord.js reads an absent field
// as unknown), fields it cannot do without are filled in where the payload tells what they are, and
// a payload missing what no one can guess (an id, the author, the channel) is dropped, with the
// reason for the log. The nulls Discord documents are kept (a user's global_name or avatar, a
// member's nick, a message's edited_timestamp or referenced_message): such a null clears what
// discord.js has cached (a nickname removed), where an absent field would leave it. Unknown fields
// are kept.
import { z } from 'zod';

const Snowflake = z.string().regex(/^\d{1,20}$/, 'not a snowflake');
const Someone = z.looseObject({ id: Snowflake });

const MessageGuard = z.looseObject({ id: Snowflake, channel_id: Snowflake, author: Someone });

const InteractionGuard = z
  .looseObject({
    id: Snowflake,
    token: z.string().min(1),
    channel: z.looseObject({ id: Snowflake, type: z.number().int() }),
    user: Someone.optional(),
    member: z.looseObject({ user: Someone.optional() }).optional(),
  })
  .refine((d) => d.user !== undefined || d.member?.user !== undefined, { error: 'neither user nor member.user', path: ['user'] });

const ButtonGuard = z.looseObject({
  data: z.looseObject({ custom_id: z.string().min(1), component_type: z.number().int() }),
  message: z.looseObject({ id: Snowflake }),
});
const CommandGuard = z.looseObject({ data: z.looseObject({ name: z.string().min(1), type: z.number().int() }) });

const InteractionType = { ApplicationCommand: 2, MessageComponent: 3 } as const;
const ChannelType = { GuildText: 0, DM: 1 } as const;

export interface GatewayPacket {
  t?: string | null;
  d?: unknown;
}

/** The type of a channel discord.js already knows, if it does. */
export type KnownChannelType = (id: string) => number | undefined;

type Payload = Record<string, unknown>;

function isPayload(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields Discord documents as nullable (developers/resources/message.mdx, user.mdx, channel.mdx, guild.mdx). */
const NULLABLE_MESSAGE_FIELDS = new Set(['edited_timestamp', 'referenced_message']);
const NULLABLE_USER_FIELDS = new Set([
  'global_name',
  'avatar',
  'avatar_decoration_data',
  'banner',
  'accent_color',
  'collectibles',
  'primary_guild',
  'clan',
]);
const NULLABLE_CHANNEL_FIELDS = new Set(['name', 'topic', 'icon', 'last_message_id', 'last_pin_timestamp', 'parent_id', 'rtc_region']);
const NULLABLE_MEMBER_FIELDS = new Set([
  'nick',
  'avatar',
  'banner',
  'premium_since',
  'communication_disabled_until',
  'avatar_decoration_data',
  'unusual_dm_activity_until',
  'joined_at',
]);

/** A copy without the null fields (but those in `keep`), and without null items in its arrays; nested objects are left as they are. */
function withoutNullFields(value: Payload, keep: ReadonlySet<string> = new Set()): Payload {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, child]) => child !== null || keep.has(key))
      .map(([key, child]) => [key, Array.isArray(child) ? child.filter((item) => item !== null) : child]),
  );
}

function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

function repairedUser(user: unknown): unknown {
  return isPayload(user) ? withoutNullFields(user, NULLABLE_USER_FIELDS) : user;
}

function repairedMember(raw: unknown): unknown {
  if (!isPayload(raw)) return raw;
  const member = withoutNullFields(raw, NULLABLE_MEMBER_FIELDS);
  if (member.user !== undefined) member.user = repairedUser(member.user);
  return member;
}

function repairedMessage(raw: Payload): Payload {
  const message = withoutNullFields(raw, NULLABLE_MESSAGE_FIELDS);
  // Without the MessageContent intent Discord sends `content: ""`; a missing one reads the same.
  if (typeof message.content !== 'string') message.content = '';
  if (message.author !== undefined) message.author = repairedUser(message.author);
  if (message.member !== undefined) message.member = repairedMember(message.member);
  if (Array.isArray(message.mentions))
    message.mentions = message.mentions.map((mentioned) =>
      isPayload(mentioned) && mentioned.member !== undefined
        ? { ...(repairedUser(mentioned) as Payload), member: repairedMember(mentioned.member) }
        : repairedUser(mentioned),
    );
  if (isPayload(message.referenced_message)) message.referenced_message = repairedMessage(message.referenced_message);
  return message;
}

function repairMessageCreate(d: Payload, knownType: KnownChannelType): string | undefined {
  // A channel discord.js has not seen is made from the event: without a guild it can only be a DM.
  if (d.channel_type === undefined && d.guild_id === undefined && typeof d.channel_id === 'string' && knownType(d.channel_id) === undefined)
    d.channel_type = ChannelType.DM;
  const checked = MessageGuard.safeParse(d);
  return checked.success ? undefined : issuesOf(checked.error);
}

function repairInteraction(d: Payload, knownType: KnownChannelType): string | undefined {
  if (!Array.isArray(d.entitlements)) d.entitlements = [];
  if (!isPayload(d.authorizing_integration_owners)) d.authorizing_integration_owners = {};
  if (isPayload(d.channel)) d.channel = withoutNullFields(d.channel, NULLABLE_CHANNEL_FIELDS);
  // discord.js takes the channel from `channel` only; older payloads carry just `channel_id`.
  if (d.channel === undefined && typeof d.channel_id === 'string')
    d.channel = { id: d.channel_id, type: knownType(d.channel_id) ?? (d.guild_id === undefined ? ChannelType.DM : ChannelType.GuildText) };
  if (d.user !== undefined) d.user = repairedUser(d.user);
  if (d.member !== undefined) d.member = repairedMember(d.member);
  const kind = d.type;
  // Kinds Parley does not handle (a ping, an autocomplete, a modal) are discord.js's business.
  if (typeof kind !== 'number') return 'type: not an interaction type';
  if (kind !== InteractionType.ApplicationCommand && kind !== InteractionType.MessageComponent) return undefined;
  if (isPayload(d.data)) d.data = withoutNullFields(d.data);
  if (kind === InteractionType.ApplicationCommand && isPayload(d.data) && d.data.type === undefined) d.data.type = 1;
  if (isPayload(d.message)) d.message = repairedMessage(d.message);
  const checked = InteractionGuard.and(kind === InteractionType.MessageComponent ? ButtonGuard : CommandGuard).safeParse(d);
  return checked.success ? undefined : issuesOf(checked.error);
}

/**
 * Repairs a MESSAGE_CREATE or INTERACTION_CREATE dispatch in place (discord.js reads the same
 * packet right after Events.Raw). Returns why it cannot be read, or undefined; other dispatches
 * are left alone.
 */
export function repairDispatch(packet: GatewayPacket, knownType: KnownChannelType): string | undefined {
  if (packet.t !== 'MESSAGE_CREATE' && packet.t !== 'INTERACTION_CREATE') return undefined;
  if (!isPayload(packet.d)) return '(root): not an object';
  const d = packet.t === 'MESSAGE_CREATE' ? repairedMessage(packet.d) : withoutNullFields(packet.d);
  packet.d = d;
  return packet.t === 'MESSAGE_CREATE' ? repairMessageCreate(d, knownType) : repairInteraction(d, knownType);
}
