// What the Lark SDK needs from Parley: a logger that keeps secrets and request dumps out of the log,
// and a token cache of its own per adapter (the SDK's default cache is shared by the process).
import type { Cache, Logger } from '@larksuiteoapi/node-sdk';
import type { CoreLogger } from '../../src/core/types.ts';

function lineOf(args: unknown[], secrets: readonly string[]): string {
  const text = args
    .map((arg) =>
      arg instanceof Error
        ? arg.message
        : typeof arg === 'string'
          ? arg
          : typeof arg === 'object' && arg !== null && 'message' in arg
            ? String(arg.message)
            : '',
    )
    .filter(Boolean)
    .join(' ')
    .slice(0, 500);
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('<redacted>');
  return out;
}

/** SDK log lines go to the adapter's log as short strings; objects (axios errors with headers) are reduced to their message. */
export function sdkLogger(log: CoreLogger, secrets: readonly string[]): Logger {
  return {
    error: (...args: unknown[]) => log.warn({ sdk: 'lark' }, lineOf(args, secrets)),
    warn: (...args: unknown[]) => log.warn({ sdk: 'lark' }, lineOf(args, secrets)),
    info: (...args: unknown[]) => log.debug({ sdk: 'lark' }, lineOf(args, secrets)),
    debug: (...args: unknown[]) => log.debug({ sdk: 'lark' }, lineOf(args, secrets)),
    trace: (...args: unknown[]) => log.debug({ sdk: 'lark' }, lineOf(args, secrets)),
  } as Logger;
}

export function memoryCache(): Cache {
  const values = new Map<string, { value: unknown; expiresAt: number | undefined }>();
  const keyOf = (key: string | symbol, namespace?: string) => `${namespace ?? ''}:${String(key)}`;
  return {
    async set(key, value, expire, options) {
      values.set(keyOf(key as string | symbol, options?.namespace), { value, expiresAt: expire });
      return true;
    },
    async get(key, options) {
      const entry = values.get(keyOf(key as string | symbol, options?.namespace));
      if (!entry) return undefined;
      if (entry.expiresAt !== undefined && entry.expiresAt < Date.now()) return undefined;
      return entry.value;
    },
  };
}
