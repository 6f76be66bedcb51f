// The web console's settings from the environment. It is on unless PARLEY_WEB turns it off, and
// it refuses to listen beyond loopback without an access token.
import { isIP } from 'node:net';
import { z } from 'zod';
import { boolean, ConfigError, integer, optionalString, parseEnv, stringWithDefault } from '../../src/core/env.ts';

export const MIN_TOKEN_LENGTH = 16;

const WebEnvSchema = z.object({
  PARLEY_WEB: boolean(true),
  PARLEY_WEB_PORT: integer(3000, 0, 65_535),
  PARLEY_WEB_HOST: stringWithDefault('127.0.0.1'),
  PARLEY_WEB_TOKEN: optionalString().refine((token) => token === undefined || token.length >= MIN_TOKEN_LENGTH, {
    error: `expects at least ${MIN_TOKEN_LENGTH} characters (for example: openssl rand -hex 16)`,
  }),
});

export interface WebConfig {
  host: string;
  port: number;
  token: string | undefined;
  /** The host is a loopback address: only this machine can connect. */
  loopback: boolean;
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
  const host = parsed.PARLEY_WEB_HOST.replace(/^\[(.*)\]$/, '$1');
  const loopback = isLoopbackHost(host);
  if (!loopback && !parsed.PARLEY_WEB_TOKEN) {
    throw new ConfigError(
      `Invalid configuration: PARLEY_WEB_HOST is ${host}, which is reachable from other machines; set PARLEY_WEB_TOKEN (at least ${MIN_TOKEN_LENGTH} characters) or bind to 127.0.0.1 (or PARLEY_WEB=off)`,
    );
  }
  return { host, port: parsed.PARLEY_WEB_PORT, token: parsed.PARLEY_WEB_TOKEN, loopback };
}

/** `http://host:port/`, with IPv6 hosts in brackets. */
export function consoleUrl(host: string, port: number): string {
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
