import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { SentRefSchema } from '../../core/types.ts';
import type { Db } from '../database.ts';
import type { ReplyState, TurnOrigin, TurnRecord, TurnStatus, Usage } from '../types.ts';

type Row = Awaited<ReturnType<Db['turn']['findUniqueOrThrow']>>;

const ReplyStateSchema = z.object({ fromRound: z.number().int().min(1), refs: z.array(SentRefSchema).min(1) });

/** A damaged or foreign value is ignored: the continued answer is then sent as a new message. */
function parseReplyState(raw: string | null): ReplyState | undefined {
  if (!raw) return undefined;
  try {
    const parsed = ReplyStateSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function toRecord(row: Row): TurnRecord {
  const replyState = parseReplyState(row.replyState);
  return {
    id: row.id,
    sessionId: row.sessionId,
    epoch: row.epoch,
    status: row.status as TurnStatus,
    rounds: row.rounds,
    usage: { promptTokens: row.promptTokens, completionTokens: row.completionTokens, totalTokens: row.totalTokens },
    error: row.error ?? undefined,
    cancelRequested: row.cancelRequested,
    cancelledBy: row.cancelledBy ?? undefined,
    origin: JSON.parse(row.origin) as TurnOrigin,
    ...(replyState ? { replyState } : {}),
    startedAt: row.startedAt,
    endedAt: row.endedAt ?? undefined,
  };
}

const FINAL: TurnStatus[] = ['done', 'failed', 'cancelled'];

export function turnsRepo(db: Db) {
  return {
    async create(input: { sessionId: string; epoch: number; origin: TurnOrigin }): Promise<TurnRecord> {
      const row = await db.turn.create({
        data: {
          id: randomUUID(),
          sessionId: input.sessionId,
          epoch: input.epoch,
          status: 'running',
          origin: JSON.stringify(input.origin),
        },
      });
      return toRecord(row);
    },

    async get(id: string): Promise<TurnRecord | undefined> {
      const row = await db.turn.findUnique({ where: { id } });
      return row ? toRecord(row) : undefined;
    },

    /** Conditional status change; true when this caller made it (exactly-once across processes). */
    async transition(id: string, from: TurnStatus | TurnStatus[], to: TurnStatus): Promise<boolean> {
      const { count } = await db.turn.updateMany({
        where: { id, status: { in: Array.isArray(from) ? from : [from] } },
        data: { status: to, ...(FINAL.includes(to) ? { endedAt: new Date(), replyState: null } : { endedAt: null }) },
      });
      return count === 1;
    },

    async finish(id: string, status: Extract<TurnStatus, 'done' | 'failed' | 'cancelled'>, error?: string): Promise<TurnRecord> {
      return toRecord(
        await db.turn.update({ where: { id }, data: { status, error: error ?? null, endedAt: new Date(), replyState: null } }),
      );
    },

    /** What was streamed so far is final (it precedes the approval prompt), so its refs go too. */
    async suspend(id: string): Promise<void> {
      await db.turn.update({ where: { id }, data: { status: 'awaiting_approval', replyState: null } });
    },

    /**
     * Records the messages of the answer being streamed. Only while the turn runs: a write that
     * arrives after the turn suspended or ended changes nothing (those messages are final).
     */
    async saveReplyState(id: string, state: ReplyState): Promise<boolean> {
      const { count } = await db.turn.updateMany({ where: { id, status: 'running' }, data: { replyState: JSON.stringify(state) } });
      return count === 1;
    },

    async addRound(id: string, usage: Usage | undefined): Promise<void> {
      await db.turn.update({
        where: { id },
        data: {
          rounds: { increment: 1 },
          promptTokens: { increment: usage?.promptTokens ?? 0 },
          completionTokens: { increment: usage?.completionTokens ?? 0 },
          totalTokens: { increment: usage?.totalTokens ?? 0 },
        },
      });
    },

    /** One more continuation of a turn left running (crash, restart, failed write); returns the count so far. */
    async countRecovery(id: string): Promise<number> {
      const row = await db.turn.update({ where: { id }, data: { recoveries: { increment: 1 } }, select: { recoveries: true } });
      return row.recoveries;
    },

    /** Ask the running turn to stop; the worker holding it polls this flag. */
    async requestCancel(id: string, by: string): Promise<boolean> {
      const { count } = await db.turn.updateMany({
        where: { id, status: { in: ['running', 'awaiting_approval'] } },
        data: { cancelRequested: true, cancelledBy: by },
      });
      return count === 1;
    },

    async cancelRequest(id: string): Promise<{ requested: boolean; by?: string }> {
      const row = await db.turn.findUnique({ where: { id }, select: { cancelRequested: true, cancelledBy: true } });
      return { requested: row?.cancelRequested ?? false, by: row?.cancelledBy ?? undefined };
    },

    /** The session's unfinished turn (running or awaiting approval), if any. */
    async active(sessionId: string): Promise<TurnRecord | undefined> {
      const row = await db.turn.findFirst({
        where: { sessionId, status: { in: ['running', 'awaiting_approval'] } },
        orderBy: { startedAt: 'desc' },
      });
      return row ? toRecord(row) : undefined;
    },

    /** Turns left `running` by a process that is gone (its session lease is free or expired). */
    async orphaned(now = new Date()): Promise<TurnRecord[]> {
      const rows = await db.turn.findMany({
        where: {
          status: 'running',
          session: { OR: [{ leaseOwner: null }, { leaseUntil: { lt: now } }] },
        },
        orderBy: { startedAt: 'asc' },
        take: 100,
      });
      return rows.map(toRecord);
    },

    /** Suspended turns whose approvals are all decided: ready to continue. */
    async decidedButSuspended(): Promise<TurnRecord[]> {
      const rows = await db.turn.findMany({
        where: { status: 'awaiting_approval', approvals: { none: { status: 'pending' } } },
        take: 100,
      });
      return rows.map(toRecord);
    },

    async list(options: { sessionId?: string; status?: TurnStatus; limit?: number } = {}): Promise<TurnRecord[]> {
      const rows = await db.turn.findMany({
        where: { ...(options.sessionId ? { sessionId: options.sessionId } : {}), ...(options.status ? { status: options.status } : {}) },
        orderBy: { startedAt: 'desc' },
        take: options.limit ?? 50,
      });
      return rows.map(toRecord);
    },
  };
}
