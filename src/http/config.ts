// Where the process's one HTTP listener binds (PARLEY_HTTP_HOST / PARLEY_HTTP_PORT). The web
// console's old PARLEY_WEB_HOST / PARLEY_WEB_PORT are refused with a line naming the new names, so
// an operator who set them is not silently served somewhere else.
import { isIP } from 'node:net';
import { z } from 'zod';
import { ConfigError, integer, parseEnv, stringWithDefault } from '../core/env.ts';

export interface HttpConfig {
  host: string;
  port: number;
}

const HttpEnvSchema = z.object({
  PARLEY_HTTP_HOST: stringWithDefault('127.0.0.1'),
  PARLEY_HTTP_PORT: integer(3000, 0, 65_535),
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
  return { host: parsed.PARLEY_HTTP_HOST.replace(/^\[(.*)\]$/, '$1'), port: parsed.PARLEY_HTTP_PORT };
}

/** `http://host:port`, with IPv6 hosts in brackets. */
export function hostUrl(host: string, port: number): string {
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
