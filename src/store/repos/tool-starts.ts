// Start records of tool calls: written (committed) before a call's side effect, so that after a
// crash a call that started but has no result is known to be interrupted, and not run again.
// Calls of idempotent tools get none (they may run again).
import { z } from 'zod';
import type { SqlDriver, SqlRunner } from '../sql/driver.ts';

/** One statement for a whole batch. A call recorded already is an error: filter first. */
async function recordToolStarts(db: SqlRunner, turnId: string, calls: readonly { id: string; name: string }[]): Promise<void> {
  if (calls.length === 0) return;
  const now = new Date();
  const values = calls.map((_, i) => `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`).join(', ');
  await db.run(
    `INSERT INTO "ToolCallStart" ("turnId", "toolCallId", "toolName", "startedAt") VALUES ${values}`,
    calls.flatMap((call) => [turnId, call.id, call.name, now]),
  );
}

export function toolStartsRepo(sql: SqlDriver) {
  return {
    record: (turnId: string, calls: { id: string; name: string }[]) => recordToolStarts(sql, turnId, calls),

    /** Ids of the turn's calls that were started (finished or not). */
    async started(turnId: string): Promise<Set<string>> {
      const rows = await sql.all(`SELECT "toolCallId" FROM "ToolCallStart" WHERE "turnId" = $1`, [turnId]);
      return new Set(rows.map((row) => z.string().parse(row.toolCallId)));
    },
  };
}
