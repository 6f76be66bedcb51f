// A finished turn's answer that is not delivered yet. A delivery that takes more than a moment (the
// platform refuses it for a while, say) is recorded on its turn, in the reply-state column (unused
// once a turn is done), with the process delivering it and the chat messages already showing it.
// Should that process die before the answer lands, the recovery sweep of another process (or of
// the next start) claims the record and delivers the answer. Every write is a compare-and-set on
// the record's text, so one process at a time owns it and nobody clears another's.
import { z } from 'zod';
import { SentRefSchema } from '../../core/types.ts';
import type { SqlDriver } from '../sql/driver.ts';
import type { ReplyState } from '../types.ts';

export interface OwedAnswer {
  turnId: string;
  /** The lease owner of the process delivering it. */
  by: string;
  /** The messages that show the answer so far (edited in place by whoever delivers it next). */
  reply: { fromRound: number; refs: ReplyState['refs'] };
  /** The stored text of the record (what a compare-and-set expects). */
  raw: string;
}

const OwedSchema = z.object({
  owed: z.object({ by: z.string().min(1), fromRound: z.number().int().min(1), refs: z.array(SentRefSchema) }),
});

/** The record's text: `by` owes the answer, shown so far in `reply`'s messages. */
export function owedRecord(by: string, reply: OwedAnswer['reply']): string {
  return JSON.stringify({ owed: { by, fromRound: reply.fromRound, refs: reply.refs } });
}

/** Undefined for a reply state that is not an owed-answer record (or is damaged). */
function parseOwed(turnId: string, raw: string): OwedAnswer | undefined {
  try {
    const parsed = OwedSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) return undefined;
    const { by, fromRound, refs } = parsed.data.owed;
    return { turnId, by, reply: { fromRound, refs }, raw };
  } catch {
    return undefined;
  }
}

export function owedAnswersRepo(sql: SqlDriver) {
  return {
    /** Every answer still owed (through the partial index on reply states: only those few rows). */
    async list(): Promise<OwedAnswer[]> {
      const rows = await sql.all(`SELECT "id", "replyState" FROM "Turn" WHERE "replyState" IS NOT NULL AND "status" = 'done'`);
      return rows.flatMap((row) => {
        const owed = parseOwed(z.string().parse(row.id), z.string().parse(row.replyState));
        return owed ? [owed] : [];
      });
    },

    /**
     * Replaces the turn's record `expected` (null: none) with `next` (null: nothing owed any more).
     * False when the record is not `expected` (another process claimed it) or the turn is not done.
     */
    async swap(turnId: string, expected: string | null, next: string | null): Promise<boolean> {
      const current = expected === null ? '"replyState" IS NULL' : '"replyState" = $4';
      const changed = await sql.run(
        `UPDATE "Turn" SET "replyState" = $1, "updatedAt" = $2 WHERE "id" = $3 AND "status" = 'done' AND ${current}`,
        [next, new Date(), turnId, ...(expected === null ? [] : [expected])],
      );
      return changed === 1;
    },
  };
}

export type OwedAnswersRepo = ReturnType<typeof owedAnswersRepo>;
