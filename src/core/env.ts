// Small zod building blocks for environment variables (core and adapters use them alike): every value arrives as a string (or not at
// all), and every error message says what the variable expects.
import { z } from 'zod';
import { LOCALE_SETTINGS, localeSettingOf } from './i18n/locale.ts';

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

export function optionalString() {
  return z.preprocess(blankToUndefined, z.string().trim().optional());
}

export function stringWithDefault(fallback: string) {
  return z.preprocess(blankToUndefined, z.string().trim().default(fallback));
}

export function integer(fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) {
  return z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: `expects a whole number from ${min} to ${max}` })
      .int({ error: `expects a whole number from ${min} to ${max}` })
      .min(min, { error: `expects a whole number from ${min} to ${max}` })
      .max(max, { error: `expects a whole number from ${min} to ${max}` })
      .default(fallback),
  );
}

export function decimal(fallback: number, min: number, max: number) {
  return z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: `expects a number from ${min} to ${max}` })
      .min(min, { error: `expects a number from ${min} to ${max}` })
      .max(max, { error: `expects a number from ${min} to ${max}` })
      .default(fallback),
  );
}

export function optionalDecimal(min: number, max: number) {
  return z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: `expects a number from ${min} to ${max}` })
      .min(min, { error: `expects a number from ${min} to ${max}` })
      .max(max, { error: `expects a number from ${min} to ${max}` })
      .optional(),
  );
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

export function boolean(fallback: boolean) {
  return z.preprocess(
    blankToUndefined,
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined) return fallback;
        const lower = value.toLowerCase();
        if (TRUE.has(lower)) return true;
        if (FALSE.has(lower)) return false;
        ctx.addIssue({ code: 'custom', message: 'expects true or false' });
        return z.NEVER;
      }),
  );
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) {
  return z.preprocess(
    (value) => (typeof value === 'string' ? blankToUndefined(value.toLowerCase()) : value),
    z.enum(values, { error: `expects one of: ${values.join(', ')}` }).default(fallback as never),
  );
}

/** PARLEY_LOCALE: `auto` (default), or a locale the bot has texts in (any case, `_` or `-`). */
export function localeSetting() {
  return z.preprocess(
    (value) => (typeof value === 'string' ? (localeSettingOf(value) ?? blankToUndefined(value)) : value),
    z.enum(LOCALE_SETTINGS, { error: `expects one of: ${LOCALE_SETTINGS.join(', ')}` }).default('auto'),
  );
}

export function httpUrl() {
  return z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .refine(
        (value) => {
          try {
            const url = new URL(value);
            return url.protocol === 'http:' || url.protocol === 'https:';
          } catch {
            return false;
          }
        },
        { error: 'expects an http:// or https:// URL' },
      )
      .optional(),
  );
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `30m`, `90s`, `2h`, `500ms`; a bare number means seconds. Result in ms. */
export function duration(fallbackMs: number) {
  return z.preprocess(
    blankToUndefined,
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined) return fallbackMs;
        const match = DURATION.exec(value.trim());
        const amount = match ? Number(match[1]) * (UNIT_MS[(match[2] ?? 's').toLowerCase()] ?? 1000) : NaN;
        if (!Number.isFinite(amount) || amount <= 0) {
          ctx.addIssue({ code: 'custom', message: 'expects a duration such as 30m, 90s or 2h' });
          return z.NEVER;
        }
        return Math.round(amount);
      }),
  );
}

/** Comma-separated list, blanks dropped. */
export function list() {
  return z.preprocess(
    blankToUndefined,
    z
      .string()
      .optional()
      .transform((value) =>
        (value ?? '')
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      ),
  );
}

/** Invalid configuration: `message` is the one line shown to the operator. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parse `env` with `schema`; on failure throw one ConfigError line naming each bad variable. */
export function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || 'configuration';
    const raw = typeof issue.path[0] === 'string' ? env[issue.path[0]] : undefined;
    const shown = raw === undefined ? '' : ` (got "${raw.length > 60 ? `${raw.slice(0, 57)}...` : raw}")`;
    return `${name} ${issue.message}${shown}`;
  });
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}
