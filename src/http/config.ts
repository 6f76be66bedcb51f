// Where the process's one HTTP listener binds (PARLEY_HTTP_HOST / PARLEY_HTTP_PORT), and whether
// other machines reach it (then /readyz names nothing without PARLEY_WEB_TOKEN). The web console's
// old PARLEY_WEB_HOST / PARLEY_WEB_PORT are refused with a line naming the new names, so an
// operator who set them is not silently served somewhere else.
import { isIP } from 'node:net';
import { z } from 'zod';
import { ConfigError, httpUrl, integer, optionalString, parseEnv, stringWithDefault } from '../core/env.ts';

export interface HttpConfig {
  host: string;
  port: number;
  /** PARLEY_WEB_PUBLIC_URL: the address people reach the listener at (through a proxy), when set. */
  publicUrl?: string;
  /** PARLEY_WEB_TOKEN: a caller that sends it as `Authorization: Bearer` may read /readyz's details. */
  accessToken?: string;
}

const HttpEnvSchema = z.object({
  PARLEY_HTTP_HOST: stringWithDefault('127.0.0.1'),
  PARLEY_HTTP_PORT: integer(3000, 0, 65_535),
  PARLEY_WEB_PUBLIC_URL: httpUrl(),
  PARLEY_WEB_TOKEN: optionalString(),
});

const RENAMED: Record<string, string> = { PARLEY_WEB_HOST: 'PARLEY_HTTP_HOST', PARLEY_WEB_PORT: 'PARLEY_HTTP_PORT' };

export function httpConfigFromEnv(env: Record<string, string | undefined>): HttpConfig {
  for (const [old, replacement] of Object.entries(RENAMED)) {
    if (env[old]?.trim()) {
      throw new ConfigError(
        `Invalid configuration: ${old} is no longer read; set ${replacement} instead (one listener serves the web console, /healthz, /readyz and webhooks)`,
      );
    }
  }
  const parsed = parseEnv(HttpEnvSchema, env);
  return {
    host: parsed.PARLEY_HTTP_HOST.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.PARLEY_HTTP_PORT,
    ...(parsed.PARLEY_WEB_PUBLIC_URL ? { publicUrl: parsed.PARLEY_WEB_PUBLIC_URL } : {}),
    ...(parsed.PARLEY_WEB_TOKEN ? { accessToken: parsed.PARLEY_WEB_TOKEN } : {}),
  };
}

function isLoopbackName(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  const version = isIP(bare);
  if (version === 4) return bare.startsWith('127.');
  return version === 6 && (bare === '::1' || bare === '0:0:0:0:0:0:0:1');
}

/** Only this machine reaches the listener: it is on loopback, and no public address says otherwise. */
export function onlyThisMachine(config: Pick<HttpConfig, 'host' | 'publicUrl'>): boolean {
  return isLoopbackName(config.host) && (config.publicUrl === undefined || isLoopbackName(new URL(config.publicUrl).hostname));
}

/** `http://host:port`, with IPv6 hosts in brackets. */
export function hostUrl(host: string, port: number): string {
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
