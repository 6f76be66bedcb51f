import { randomUUID } from 'node:crypto';
import type { Db } from '../database.ts';
import type { TurnOrigin, TurnRecord, TurnStatus, Usage } from '../types.ts';

type Row = Awaited<ReturnType<Db['turn']['findUniqueOrThrow']>>;

function toRecord(row: Row): TurnRecord {
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
        data: { status: to, ...(FINAL.includes(to) ? { endedAt: new Date() } : { endedAt: null }) },
      });
      return count === 1;
    },

    async finish(id: string, status: Extract<TurnStatus, 'done' | 'failed' | 'cancelled'>, error?: string): Promise<TurnRecord> {
      return toRecord(await db.turn.update({ where: { id }, data: { status, error: error ?? null, endedAt: new Date() } }));
    },

    async suspend(id: string): Promise<void> {
      await db.turn.update({ where: { id }, data: { status: 'awaiting_approval' } });
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

export type TurnsRepo = ReturnType<typeof turnsRepo>;
