// Discord API v10 objects as the real API sends them (the fields discord.js reads).
export const ChannelKind = { GuildText: 0, DM: 1, PublicThread: 11 } as const;

export interface DUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: '0';
  avatar: null;
  bot?: boolean;
}

export interface DChannel {
  id: string;
  type: number;
  guild_id?: string;
  parent_id?: string;
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
  message_reference?: { message_id: string; channel_id: string; guild_id?: string };
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

export function user(username: string, bot = false): DUser {
  return {
    id: snowflake(),
    username: username.toLowerCase(),
    global_name: bot ? null : username,
    discriminator: '0',
    avatar: null,
    ...(bot ? { bot } : {}),
  };
}

export function member(u: DUser) {
  return { user: u, roles: [], joined_at: new Date(0).toISOString(), deaf: false, mute: false, flags: 0, permissions: '2248473465835073' };
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
        permissions: '2248473465835073',
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
    channels: guild.channels.map((c) => ({ ...c, position: 0, permission_overwrites: [] })),
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
