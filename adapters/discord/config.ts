// The Discord channel's settings, read from the environment. The token is checked on its own so
// that no error message ever repeats it.
import { z } from 'zod';
import { ConfigError, duration, httpUrl, list, optionalString, parseEnv } from '../../src/core/env.ts';

const DEFAULT_API_ROOT = 'https://discord.com/api';

export interface DiscordConfig {
  token: string;
  /** REST base without the version, e.g. https://discord.com/api. */
  apiRoot: string;
  allowedGuilds: ReadonlySet<string>;
  /** Channel ids; a thread passes when its parent channel is listed. */
  allowedChannels: ReadonlySet<string>;
  allowedUsers: ReadonlySet<string>;
  /** Register slash commands in this guild only (instant updates) instead of globally. */
  commandsGuild: string | undefined;
  editIntervalMs: { direct: number; group: number };
}

// Three base64url parts separated by dots (user id, timestamp, HMAC).
const TOKEN = /^[A-Za-z0-9_-]{17,40}\.[A-Za-z0-9_-]{4,10}\.[A-Za-z0-9_-]{20,60}$/;
const SNOWFLAKE = /^\d{15,22}$/;

function idList(what: string) {
  return list().refine((ids) => ids.every((id) => SNOWFLAKE.test(id)), {
    error: `expects comma-separated Discord ${what} ids (numbers like 123456789012345678; Developer Mode → Copy ID)`,
  });
}

const DiscordEnvSchema = z.object({
  DISCORD_API_ROOT: httpUrl(),
  DISCORD_ALLOWED_GUILDS: idList('server'),
  DISCORD_ALLOWED_CHANNELS: idList('channel'),
  DISCORD_ALLOWED_USERS: idList('user'),
  DISCORD_COMMANDS_GUILD: optionalString().refine((value) => value === undefined || SNOWFLAKE.test(value), {
    error: 'expects one Discord server id (a number like 123456789012345678)',
  }),
  // Discord allows about 5 edits per 5 s per message.
  DISCORD_EDIT_INTERVAL: duration(1_200),
});

/** Undefined when DISCORD_BOT_TOKEN is not set (the channel is off); ConfigError when invalid. */
export function loadDiscordConfig(env: Record<string, string | undefined>): DiscordConfig | undefined {
  const token = env.DISCORD_BOT_TOKEN?.trim();
  if (!token) return undefined;
  if (!TOKEN.test(token)) {
    throw new ConfigError(
      'Invalid configuration: DISCORD_BOT_TOKEN expects the bot token from the Developer Portal (Bot → Reset Token), three dot-separated parts (value not shown)',
    );
  }
  const parsed = parseEnv(DiscordEnvSchema, env);
  const interval = parsed.DISCORD_EDIT_INTERVAL;
  return {
    token,
    apiRoot: (parsed.DISCORD_API_ROOT ?? DEFAULT_API_ROOT).replace(/\/+$/, ''),
    allowedGuilds: new Set(parsed.DISCORD_ALLOWED_GUILDS),
    allowedChannels: new Set(parsed.DISCORD_ALLOWED_CHANNELS),
    allowedUsers: new Set(parsed.DISCORD_ALLOWED_USERS),
    commandsGuild: parsed.DISCORD_COMMANDS_GUILD,
    editIntervalMs: { direct: interval, group: interval },
  };
}
