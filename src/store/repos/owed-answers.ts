// What a process owes a chat: a finished turn's answer, or a suspended turn's approval prompts, not
// yet confirmed shown. The write that finishes (or suspends) a turn records it, in the reply-state
// column (no longer needed for streaming then), naming the process and the messages already showing
// the answer; the delivering process clears it once the chat has it. Should that process die first,
// the recovery sweep of another process (or of the next start) claims the record and delivers.
// The record's text begins with the owner (ownedPrefix), so that a process replaces or clears only
// its own record without knowing the rest of it; a claim is a compare-and-set on the whole text.
import { z } from 'zod';
import { SentRefSchema } from '../../core/types.ts';
import type { SqlDriver, SqlValue } from '../sql/driver.ts';
import type { ReplyState } from '../types.ts';

export type OwedKind = 'answer' | 'prompts';

export interface OwedAnswer {
  turnId: string;
  /** A finished turn's answer, or a suspended turn's approval prompts. */
  kind: OwedKind;
  /** The lease owner of the process delivering it. */
  by: string;
  /** The messages that show the answer so far (edited in place by whoever delivers it next). */
  reply: ReplyState;
  /** The stored text of the record (what a claim expects). */
  raw: string;
}

const STATUS_OF: Record<OwedKind, 'done' | 'awaiting_approval'> = { answer: 'done', prompts: 'awaiting_approval' };

/** A reply state as stored (refs may be empty while a first message is being sent). */
export const ReplyStateSchema = z.object({
  fromRound: z.number().int().min(1),
  refs: z.array(SentRefSchema),
  unsent: z.object({ index: z.number().int().min(0), chars: z.number().int().min(0) }).optional(),
});
const OwedSchema = z.object({ owed: z.string().min(1), reply: z.unknown() });

/** How every record `by` writes begins. */
function ownedPrefix(by: string): string {
  return `{"owed":${JSON.stringify(by)},`;
}

/** The record's text: `by` owes the answer, shown so far in `reply`'s messages. */
export function owedRecord(by: string, reply: OwedAnswer['reply'] | null): string {
  const state = reply && { fromRound: reply.fromRound, refs: reply.refs, ...(reply.unsent ? { unsent: reply.unsent } : {}) };
  return `${ownedPrefix(by)}"reply":${state ? JSON.stringify(state) : 'null'}}`;
}

/**
 * The SQL expression a finishing (or suspending) write sets the reply state to: `owner`'s record
 * around the reply state the streaming left ($n is JSON.stringify(owner)). Same text as owedRecord.
 */
export function owedRecordSql(n: number): string {
  return `'{"owed":' || CAST($${n} AS TEXT) || ',"reply":' || COALESCE("replyState", 'null') || '}'`;
}

/** Undefined for a reply state that is not an owed record (or is damaged). */
function parseOwed(turnId: string, status: string, raw: string): OwedAnswer | undefined {
  const kind = status === 'done' ? 'answer' : status === 'awaiting_approval' ? 'prompts' : undefined;
  if (!kind) return undefined;
  try {
    const parsed = OwedSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) return undefined;
    // A reply state the streaming left damaged (or none): the whole answer, in new messages.
    const reply = ReplyStateSchema.safeParse(parsed.data.reply);
    return { turnId, kind, by: parsed.data.owed, reply: reply.success ? reply.data : { fromRound: 1, refs: [] }, raw };
  } catch {
    return undefined;
  }
}

export function owedAnswersRepo(sql: SqlDriver) {
  /** Changes the record only while it is `by`'s own (or none) and the turn is as `kind` leaves it. */
  const ownRecord = async (turnId: string, kind: OwedKind, by: string, next: string | null, orNone: boolean): Promise<boolean> => {
    const prefix = ownedPrefix(by);
    const values: SqlValue[] = [next, new Date(), turnId, STATUS_OF[kind], prefix.length, prefix];
    const none = orNone ? `"replyState" IS NULL OR ` : '';
    const changed = await sql.run(
      `UPDATE "Turn" SET "replyState" = $1, "updatedAt" = $2 WHERE "id" = $3 AND "status" = $4 AND (${none}substr("replyState", 1, $5) = $6)`,
      values,
    );
    return changed === 1;
  };
  return {
    /** Everything still owed (through the partial index on reply states: only those few rows). */
    async list(): Promise<OwedAnswer[]> {
      const rows = await sql.all(
        `SELECT "id", "status", "replyState" FROM "Turn" WHERE "replyState" IS NOT NULL AND "status" IN ('done', 'awaiting_approval')`,
      );
      return rows.flatMap((row) => {
        const owed = parseOwed(z.string().parse(row.id), z.string().parse(row.status), z.string().parse(row.replyState));
        return owed ? [owed] : [];
      });
    },

    /** Takes over a record exactly as it was read (false: another process was first, or it changed). */
    async claim(owed: OwedAnswer, next: string): Promise<boolean> {
      const changed = await sql.run(`UPDATE "Turn" SET "replyState" = $1, "updatedAt" = $2 WHERE "id" = $3 AND "replyState" = $4`, [
        next,
        new Date(),
        owed.turnId,
        owed.raw,
      ]);
      return changed === 1;
    },

    /** `by`'s record (or none yet) becomes `next`: the messages showing the answer changed. */
    update: (turnId: string, by: string, next: string) => ownRecord(turnId, 'answer', by, next, true),

    /** Clears `by`'s record: the chat has the answer (or the prompts), or was told it failed. */
    settle: (turnId: string, kind: OwedKind, by: string) => ownRecord(turnId, kind, by, null, false),
  };
}

export type OwedAnswersRepo = ReturnType<typeof owedAnswersRepo>;
