// The web console's settings from the environment. It is on unless PARLEY_WEB turns it off; it is
// served by the process's one HTTP listener (PARLEY_HTTP_HOST / PARLEY_HTTP_PORT, src/http) and
// refuses to be reachable from other machines (a listener beyond loopback, or a public address in
// PARLEY_WEB_PUBLIC_URL) without an access token.
import { isIP } from 'node:net';
import { z } from 'zod';
import {
  boolean,
  ConfigError,
  decimal,
  httpUrl,
  integer,
  localeSetting,
  optionalString,
  parseEnv,
  stringWithDefault,
} from '../../src/core/env.ts';
import type { LocaleSetting } from '../../src/core/i18n/index.ts';

const MIN_TOKEN_LENGTH = 16;
const MIN_SECRET_LENGTH = 32;

const WebEnvSchema = z.object({
  PARLEY_WEB: boolean(true),
  // Read here only to apply the remote-access rule; the listener itself is src/http's.
  PARLEY_HTTP_HOST: stringWithDefault('127.0.0.1'),
  PARLEY_WEB_TOKEN: optionalString().refine((token) => token === undefined || token.length >= MIN_TOKEN_LENGTH, {
    error: `expects at least ${MIN_TOKEN_LENGTH} characters (for example: openssl rand -hex 16)`,
  }),
  PARLEY_WEB_SECRET: optionalString().refine((secret) => secret === undefined || secret.length >= MIN_SECRET_LENGTH, {
    error: `expects at least ${MIN_SECRET_LENGTH} characters (for example: openssl rand -hex 32)`,
  }),
  PARLEY_WEB_MAX_STREAMS_PER_USER: integer(8, 1, 1_000),
  PARLEY_WEB_MAX_STREAMS: integer(200, 1, 100_000),
  PARLEY_WEB_PUBLIC_URL: httpUrl(),
  // The language of the page's own words: the core's setting (src/config), read here for the page.
  PARLEY_LOCALE: localeSetting(),
  // The media intake's cap (src/config), read here so an upload is refused while it arrives.
  PARLEY_MEDIA_MAX_MB: decimal(20, 0.01, 2_000),
});

export interface WebConfig {
  token: string | undefined;
  /** The listener is on a loopback address: only this machine can connect. */
  loopback: boolean;
  /** Signs the browsers' identity cookies; undefined = a per-install file in the data folder. */
  secret: string | undefined;
  maxStreamsPerUser: number;
  maxStreams: number;
  /** Largest file a browser may drop or paste into the console (PARLEY_MEDIA_MAX_MB, as every channel). */
  maxUploadBytes: number;
  /**
   * Where people open the console (PARLEY_WEB_PUBLIC_URL, an origin, e.g. behind a TLS-terminating
   * proxy): the links Parley prints use it, and https:// makes every cookie Secure.
   */
  publicUrl?: string;
  /** PARLEY_LOCALE: the page's words in this locale, or (`auto`) in the browser's language. */
  locale: LocaleSetting;
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  const version = isIP(bare);
  if (version === 4) return bare.startsWith('127.');
  if (version === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}

/** Undefined when the console is turned off; ConfigError when it is configured unsafely. */
export function webConfigFromEnv(env: Record<string, string | undefined>): WebConfig | undefined {
  const parsed = parseEnv(WebEnvSchema, env);
  if (!parsed.PARLEY_WEB) return undefined;
  const host = parsed.PARLEY_HTTP_HOST.replace(/^\[(.*)\]$/, '$1');
  const loopback = isLoopbackHost(host);
  if (!loopback && !parsed.PARLEY_WEB_TOKEN) {
    throw new ConfigError(
      `Invalid configuration: PARLEY_HTTP_HOST is ${host}, which is reachable from other machines; set PARLEY_WEB_TOKEN (at least ${MIN_TOKEN_LENGTH} characters) for the web console, bind to 127.0.0.1, or set PARLEY_WEB=off`,
    );
  }
  const publicUrl = parsed.PARLEY_WEB_PUBLIC_URL === undefined ? undefined : new URL(parsed.PARLEY_WEB_PUBLIC_URL);
  if (publicUrl && (publicUrl.pathname !== '/' || publicUrl.search || publicUrl.hash || publicUrl.username)) {
    throw new ConfigError(
      `Invalid configuration: PARLEY_WEB_PUBLIC_URL expects the console's origin only, such as https://bot.example.com (it is served at /; got "${parsed.PARLEY_WEB_PUBLIC_URL}")`,
    );
  }
  if (publicUrl && !isLoopbackHost(publicUrl.hostname) && !parsed.PARLEY_WEB_TOKEN) {
    throw new ConfigError(
      `Invalid configuration: PARLEY_WEB_PUBLIC_URL is ${publicUrl.origin}, which other machines reach; set PARLEY_WEB_TOKEN (at least ${MIN_TOKEN_LENGTH} characters) for the web console, or set PARLEY_WEB=off`,
    );
  }
  return {
    token: parsed.PARLEY_WEB_TOKEN,
    loopback,
    secret: parsed.PARLEY_WEB_SECRET,
    maxStreamsPerUser: parsed.PARLEY_WEB_MAX_STREAMS_PER_USER,
    maxStreams: parsed.PARLEY_WEB_MAX_STREAMS,
    locale: parsed.PARLEY_LOCALE,
    maxUploadBytes: Math.round(parsed.PARLEY_MEDIA_MAX_MB * 1_000_000),
    ...(publicUrl ? { publicUrl: publicUrl.origin } : {}),
  };
}
