// Start records of tool calls: written (committed) before a call's side effect, so that after a
// crash a call that started but has no result is known to be interrupted, and not run again.
import type { Db } from '../database.ts';

export function toolStartsRepo(db: Db) {
  return {
    /** One statement for a whole batch. A call recorded already is an error: filter first. */
    async record(turnId: string, calls: { id: string; name: string }[]): Promise<void> {
      if (calls.length === 0) return;
      await db.toolCallStart.createMany({ data: calls.map((call) => ({ turnId, toolCallId: call.id, toolName: call.name })) });
    },

    /** Ids of the turn's calls that were started (finished or not). */
    async started(turnId: string): Promise<Set<string>> {
      const rows = await db.toolCallStart.findMany({ where: { turnId }, select: { toolCallId: true } });
      return new Set(rows.map((row) => row.toolCallId));
    },
  };
}
