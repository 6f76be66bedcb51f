// The Telegram channel's settings, read from the environment. The token is checked on its own so
// that no error message ever repeats it.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ConfigError, duration, httpUrl, list, optionalString, parseEnv } from '../../src/core/env.ts';

const DEFAULT_API_ROOT = 'https://api.telegram.org';

type TelegramMode =
  | { kind: 'polling' }
  | {
      kind: 'webhook';
      /** Public URL Telegram posts updates to. */
      url: string;
      /** Sent by Telegram in X-Telegram-Bot-Api-Secret-Token; requests without it are refused. */
      secretToken: string;
      /** Served on the process's one HTTP listener (PARLEY_HTTP_HOST/PORT) at this path, the path of `url`. */
      path: string;
    };

export interface TelegramConfig {
  token: string;
  apiRoot: string;
  mode: TelegramMode;
  /** Chat ids the bot serves (empty: every chat). A private chat's id is the user's id. */
  allowedChats: ReadonlySet<string>;
  /** User ids the bot listens to (empty: everyone). */
  allowedUsers: ReadonlySet<string>;
  editIntervalMs: { direct: number; group: number };
}

const TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
const TELEGRAM_ID = /^-?\d{1,20}$/;
/** What the HTTP listener mounts (RFC 3986 path characters). */
const WEBHOOK_PATH = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/;

function idList(what: string) {
  return list().refine((ids) => ids.every((id) => TELEGRAM_ID.test(id)), {
    error: `expects comma-separated numeric Telegram ${what} ids (e.g. 123456789,-1001234567890)`,
  });
}

const TelegramEnvSchema = z.object({
  TELEGRAM_API_ROOT: httpUrl(),
  TELEGRAM_WEBHOOK_URL: httpUrl(),
  TELEGRAM_WEBHOOK_SECRET: optionalString().refine((value) => value === undefined || SECRET_TOKEN.test(value), {
    error: 'expects 1-256 characters from A-Z, a-z, 0-9, _ and -',
  }),
  TELEGRAM_ALLOWED_CHATS: idList('chat'),
  TELEGRAM_ALLOWED_USERS: idList('user'),
  TELEGRAM_EDIT_INTERVAL_PRIVATE: duration(1_000),
  TELEGRAM_EDIT_INTERVAL_GROUP: duration(3_000),
});

/** A stable secret derived from the token, so every process of one bot agrees on it. */
export function deriveWebhookSecret(token: string): string {
  return createHash('sha256').update(`parley-telegram-webhook:${token}`).digest('base64url');
}

const RENAMED: Record<string, string> = { TELEGRAM_WEBHOOK_HOST: 'PARLEY_HTTP_HOST', TELEGRAM_WEBHOOK_PORT: 'PARLEY_HTTP_PORT' };

/** Undefined when TELEGRAM_BOT_TOKEN is not set (the channel is off); ConfigError when invalid. */
export function loadTelegramConfig(env: Record<string, string | undefined>): TelegramConfig | undefined {
  for (const [old, replacement] of Object.entries(RENAMED)) {
    if (env[old]?.trim()) {
      throw new ConfigError(
        `Invalid configuration: ${old} is no longer read; set ${replacement} instead (the webhook is served by the one HTTP listener, at the path of TELEGRAM_WEBHOOK_URL)`,
      );
    }
  }
  const token = env.TELEGRAM_BOT_TOKEN?.trim();
  if (!token) return undefined;
  if (!TOKEN.test(token)) {
    throw new ConfigError(
      'Invalid configuration: TELEGRAM_BOT_TOKEN expects a bot token from @BotFather, like 123456789:AAE... (value not shown)',
    );
  }
  const parsed = parseEnv(TelegramEnvSchema, env);
  const apiRoot = (parsed.TELEGRAM_API_ROOT ?? DEFAULT_API_ROOT).replace(/\/+$/, '');
  let mode: TelegramMode = { kind: 'polling' };
  if (parsed.TELEGRAM_WEBHOOK_URL) {
    const url = new URL(parsed.TELEGRAM_WEBHOOK_URL);
    // '/' belongs to the web console on the shared listener.
    if (url.pathname === '/' || url.pathname === '') {
      throw new ConfigError(
        'Invalid configuration: TELEGRAM_WEBHOOK_URL expects a path (e.g. https://bot.example.com/telegram): Parley serves the webhook at that path',
      );
    }
    if (!WEBHOOK_PATH.test(url.pathname)) {
      throw new ConfigError(
        'Invalid configuration: TELEGRAM_WEBHOOK_URL expects a path of letters, digits and - . _ ~ / (percent-encoded otherwise)',
      );
    }
    mode = {
      kind: 'webhook',
      url: url.toString(),
      secretToken: parsed.TELEGRAM_WEBHOOK_SECRET ?? deriveWebhookSecret(token),
      path: url.pathname,
    };
  }
  return {
    token,
    apiRoot,
    mode,
    allowedChats: new Set(parsed.TELEGRAM_ALLOWED_CHATS),
    allowedUsers: new Set(parsed.TELEGRAM_ALLOWED_USERS),
    editIntervalMs: { direct: parsed.TELEGRAM_EDIT_INTERVAL_PRIVATE, group: parsed.TELEGRAM_EDIT_INTERVAL_GROUP },
  };
}
