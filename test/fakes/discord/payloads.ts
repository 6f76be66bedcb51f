// Discord API v10 objects as the real API sends them: every documented field, with the explicit
// nulls Discord writes (a user's avatar, global_name (always null for bots), avatar_decoration_data,
// collectibles, primary_guild, clan; a member's nick, avatar, banner, premium_since,
// communication_disabled_until; a message's edited_timestamp) and without the fields it leaves out
// (webhook_id, guild_id in DMs, member in DMs). Sources: discord/discord-api-docs
// (developers/resources/message.mdx "Example Message", developers/resources/user.mdx,
// developers/resources/guild.mdx "Guild Member Object", developers/events/gateway-events.mdx
// "Message Create Extra Fields", developers/interactions/receiving-and-responding.mdx "Interaction
// Structure"), and captures of live gateway traffic published in public repositories (a guild
// MESSAGE_CREATE with member.nick/avatar/banner: null and no member.user, 2026; signed
// INTERACTION_CREATE bodies with channel, guild {features, id, locale}, member.user, entitlements,
// entitlement_sku_ids, authorizing_integration_owners, context, attachment_size_limit, 2024-2025; a
// DM MESSAGE_CREATE with nonce, flags: 0, components: [] and referenced_message: null, 2023).
export const ChannelKind = { GuildText: 0, DM: 1, PublicThread: 11 } as const;

export interface DUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: '0';
  avatar: string | null;
  avatar_decoration_data: null;
  collectibles: null;
  primary_guild: null;
  clan: null;
  public_flags: number;
  bot?: boolean;
}

export interface DChannel {
  id: string;
  type: number;
  guild_id?: string;
  /** null for a channel outside any category; the parent channel for a thread. */
  parent_id?: string | null;
  name?: string;
  /** DM: the person on the other side. */
  recipient?: DUser;
}

export interface DGuild {
  id: string;
  name: string;
  channels: DChannel[];
}

export interface DComponent {
  type: number;
  style?: number;
  label?: string;
  custom_id?: string;
  components?: DComponent[];
}

interface DAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
  width?: number;
  height?: number;
  /** Voice messages (message flag 8192): length in seconds and a base64 waveform of up to 256 bytes. */
  duration_secs?: number;
  waveform?: string;
}

export interface DMessage {
  id: string;
  type: 0 | 19;
  channel_id: string;
  guild_id?: string;
  author: DUser;
  content: string;
  timestamp: string;
  edited_timestamp: string | null;
  tts: false;
  mention_everyone: false;
  mentions: DUser[];
  mention_roles: [];
  attachments: DAttachment[];
  embeds: [];
  pinned: false;
  components: DComponent[];
  flags: number;
  /** What the sending client chose; Discord's own clients always send one. */
  nonce?: string;
  message_reference?: { type: 0; message_id: string; channel_id: string; guild_id?: string };
  /** The replied-to message; null when it was deleted (or, seen in captures, on a message that replies to nothing). */
  referenced_message?: DMessage | null;
  webhook_id?: string;
  application_id?: string;
}

let counter = 0n;
/** Snowflake-shaped, increasing ids. */
export function snowflake(): string {
  counter += 1n;
  return ((BigInt(Date.now() - 1_420_070_400_000) << 22n) + counter).toString();
}

export interface UserOptions {
  bot?: boolean;
  /** The display name; default the name given (null for bots, as Discord sends it). */
  globalName?: string | null;
}

export function user(name: string, options: UserOptions = {}): DUser {
  const bot = options.bot ?? false;
  return {
    id: snowflake(),
    username: name.toLowerCase(),
    global_name: options.globalName !== undefined ? options.globalName : bot ? null : name,
    discriminator: '0',
    avatar: null,
    avatar_decoration_data: null,
    collectibles: null,
    primary_guild: null,
    clan: null,
    public_flags: 0,
    ...(bot ? { bot } : {}),
  };
}

const PERMISSIONS = '2248473465835073';

/** A guild member as MESSAGE_CREATE carries it: no `user` (that is the author) and no permissions. */
export function messageMember() {
  return {
    avatar: null,
    banner: null,
    communication_disabled_until: null,
    deaf: false,
    flags: 0,
    joined_at: new Date(0).toISOString(),
    mute: false,
    nick: null,
    pending: false,
    premium_since: null,
    roles: [],
  };
}

/** A guild member as an interaction carries it: with its user and permissions. */
export function member(u: DUser) {
  return { ...messageMember(), permissions: PERMISSIONS, unusual_dm_activity_until: null, user: u };
}

export function guildCreate(guild: DGuild, threads: DChannel[]) {
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    owner_id: '1',
    unavailable: false,
    member_count: 2,
    large: false,
    joined_at: new Date(0).toISOString(),
    roles: [
      {
        id: guild.id,
        name: '@everyone',
        permissions: PERMISSIONS,
        position: 0,
        color: 0,
        hoist: false,
        managed: false,
        mentionable: false,
        flags: 0,
      },
    ],
    emojis: [],
    stickers: [],
    features: [],
    members: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    channels: guild.channels.map((c) => channelObject(c)),
    threads,
    premium_tier: 0,
    preferred_locale: 'en-US',
    system_channel_flags: 0,
    nsfw_level: 0,
    mfa_level: 0,
    verification_level: 0,
    explicit_content_filter: 0,
    default_message_notifications: 0,
  };
}

export function threadChannel(
  id: string,
  guildId: string,
  parentId: string,
  name: string,
  ownerId: string,
): DChannel & Record<string, unknown> {
  return {
    id,
    type: ChannelKind.PublicThread,
    guild_id: guildId,
    parent_id: parentId,
    name,
    owner_id: ownerId,
    member_count: 1,
    message_count: 0,
    thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false },
  };
}

/** A guild text channel as GUILD_CREATE and an interaction's `channel` carry it. */
export function channelObject(channel: DChannel): Record<string, unknown> {
  if (channel.type !== ChannelKind.GuildText) return { ...channel };
  return {
    ...channel,
    flags: 0,
    last_message_id: null,
    nsfw: false,
    parent_id: channel.parent_id ?? null,
    permission_overwrites: [],
    position: 0,
    rate_limit_per_user: 0,
    topic: null,
  };
}
