// What the repositories share about the database beyond the SQL driver (src/store/sql).

const UNIQUE_VIOLATIONS = new Set(['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** A unique constraint violation reported by the store's SQL driver (a StoreError's cause). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  if (code !== undefined && UNIQUE_VIOLATIONS.has(code)) return true;
  return error instanceof Error && error.cause !== undefined && error.cause !== error && isUniqueViolation(error.cause);
}
