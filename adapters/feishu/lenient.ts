// Readers for Feishu payload fields. Real events carry explicit `null` (and sometimes "") for what
// does not apply or what the app may not see (`user_id` without the "obtain user ID" scope,
// `root_id` outside threads, `mentions` without mentions), and gain fields over time. An optional
// field is therefore absent whenever it is not a usable value, whatever it holds; only what Parley
// cannot do without may reject an event.
import { z } from 'zod';

// `.optional()` first: zod refuses a missing key for a schema that does not admit undefined.
const anyValue = z.unknown().optional();

/** What Parley cannot do without: a non-empty string. */
export const requiredText = z.string().min(1);

/** A non-empty string, or undefined (absent, null, "", or another type). */
export const optionalText = anyValue.transform((value) => (typeof value === 'string' && value !== '' ? value : undefined));

/** Epoch milliseconds sent as a string (or a number), or undefined when not a positive time. */
export const optionalMillis = anyValue.transform((value) => {
  const ms = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : typeof value === 'number' ? value : Number.NaN;
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
});

/** `schema`'s value, or undefined when the field is absent, null or not of that shape. */
export function optional<T extends z.ZodType>(schema: T) {
  return anyValue.transform((value): z.output<T> | undefined => {
    if (value === null || value === undefined) return undefined;
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  });
}

/** The items that fit `schema`; a list that is absent, null or not a list is empty. */
export function listOf<T extends z.ZodType>(schema: T) {
  return anyValue.transform((value): z.output<T>[] =>
    Array.isArray(value)
      ? value.flatMap((item) => {
          const parsed = schema.safeParse(item);
          return parsed.success ? [parsed.data] : [];
        })
      : [],
  );
}
