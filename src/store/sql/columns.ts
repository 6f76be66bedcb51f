// zod types for columns as the two drivers return them: SQLite gives DateTime as text and
// Boolean as 0/1, PostgreSQL gives Date and boolean; counts come back as text from PostgreSQL.
import { z } from 'zod';

export const dateColumn = z.coerce.date();
export const boolColumn = z.union([z.boolean(), z.number()]).transform((value) => value === true || value === 1);
export const intColumn = z.coerce.number().int();
/**
 * The columns of `row` named `prefix`<column>, under their own names: for statements that return
 * one table's row beside another's (a CTE joined to the rows it wrote).
 */
export const unprefixed = (row: Record<string, unknown>, prefix: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(row).flatMap(([key, value]) => (key.startsWith(prefix) ? [[key.slice(prefix.length), value]] : [])));

/** A nullable text column as an optional field. */
export const optionalText = z
  .string()
  .nullable()
  .transform((value) => value ?? undefined);
