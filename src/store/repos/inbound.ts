import { z } from 'zod';
import { isUniqueViolation } from '../database.ts';
import { InboundSchema, type Inbound } from '../../core/types.ts';
import { textForModel } from '../../core/attachments.ts';
import { intColumn } from '../sql/columns.ts';
import type { SqlDriver, SqlRunner } from '../sql/driver.ts';
import { appendMessages } from './messages.ts';

export type InboundStatus = 'ignored' | 'queued' | 'done';

const queuedRow = z.object({ sessionId: z.string(), activeStatus: z.enum(['running', 'awaiting_approval']).nullable() });

const parsePayload = (payload: unknown): Inbound => InboundSchema.parse(JSON.parse(z.string().parse(payload)));

/** The key of a message in `PreparedContents`. */
export const contentKey = (inbound: Pick<Inbound, 'channel' | 'eventId'>): string => `${inbound.channel}\u0000${inbound.eventId}`;

/**
 * User message contents made beforehand (the media intake read their attachments), by contentKey,
 * for the queued messages up to the one with id `upToId`: the claim takes no later message (one
 * that came after they were looked at waits for the next claim, to be prepared first).
 */
export interface PreparedContents {
  contents: ReadonlyMap<string, string>;
  upToId: number;
}

/**
 * Moves the session's queued messages, oldest first, into the conversation of `turnId`: each is
 * marked done and appended as a user message (its prepared content when `prepared` has one, else
 * textForModel). Run inside a transaction (the caller's), so a crash can neither lose nor
 * duplicate one. Callers hold the session lease.
 */
export async function claimQueued(
  tx: SqlRunner,
  sessionId: string,
  turnId: string,
  epoch: number,
  limit = 50,
  prepared?: PreparedContents,
): Promise<Inbound[]> {
  const rows = await tx.all(
    `UPDATE "InboundEvent" SET "status" = 'done', "turnId" = $1 WHERE "id" IN
      (SELECT "id" FROM "InboundEvent" WHERE "sessionId" = $2 AND "status" = 'queued' AND "id" <= $3 ORDER BY "id" LIMIT $4) RETURNING "id", "payload"`,
    // Placeholders in the order they appear (SQLite's are positional).
    [turnId, sessionId, prepared?.upToId ?? 2_147_483_647, limit],
  );
  const claimed = rows
    .map((row) => ({ id: intColumn.parse(row.id), inbound: parsePayload(row.payload ?? '{}') }))
    .sort((a, b) => a.id - b.id)
    .map((row) => row.inbound);
  await appendMessages(
    tx,
    claimed.map((inbound) => ({
      sessionId,
      epoch,
      turnId,
      role: 'user' as const,
      content: prepared?.contents.get(contentKey(inbound)) ?? textForModel(inbound),
      senderId: inbound.sender.id,
      senderName: inbound.sender.displayName,
    })),
  );
  return claimed;
}

export function inboundRepo(sql: SqlDriver) {
  const hasQueued = async (sessionId: string) =>
    (await sql.all(`SELECT 1 AS "one" FROM "InboundEvent" WHERE "sessionId" = $1 AND "status" = 'queued' LIMIT 1`, [sessionId])).length > 0;
  return {
    /**
     * Record a platform event once. Returns false when (channel, eventId) was seen before: the
     * unique constraint makes this exact across processes and restarts.
     */
    async record(inbound: Inbound, sessionId: string | null, status: InboundStatus): Promise<boolean> {
      try {
        await sql.run(
          `INSERT INTO "InboundEvent" ("channel", "eventId", "sessionId", "status", "payload", "receivedAt") VALUES ($1, $2, $3, $4, $5, $6)`,
          [inbound.channel, inbound.eventId, sessionId, status, status === 'queued' ? JSON.stringify(inbound) : null, new Date()],
        );
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    /**
     * Records a message queued for the session of `key` in one statement, which also gives that
     * session's unfinished turn: 'no-session' (nothing written) when the key has no session yet,
     * 'duplicate' when (channel, eventId) was seen before.
     */
    async queueForKey(
      inbound: Inbound,
      key: string,
    ): Promise<{ sessionId: string; activeStatus?: 'running' | 'awaiting_approval' } | 'no-session' | 'duplicate'> {
      try {
        const rows = await sql.all(
          `INSERT INTO "InboundEvent" ("channel", "eventId", "sessionId", "status", "payload", "receivedAt")
            SELECT $1, $2, s."id", 'queued', $3, $4 FROM "Session" s WHERE s."key" = $5
            RETURNING "sessionId", (SELECT t."status" FROM "Turn" t WHERE t."sessionId" = "InboundEvent"."sessionId"
              AND t."status" IN ('running', 'awaiting_approval') ORDER BY t."startedAt" DESC LIMIT 1) AS "activeStatus"`,
          [inbound.channel, inbound.eventId, JSON.stringify(inbound), new Date(), key],
        );
        if (!rows[0]) return 'no-session';
        const row = queuedRow.parse(rows[0]);
        return { sessionId: row.sessionId, ...(row.activeStatus ? { activeStatus: row.activeStatus } : {}) };
      } catch (error) {
        if (isUniqueViolation(error)) return 'duplicate';
        throw error;
      }
    },

    /** How many messages wait in the mailbox of the session with this key. */
    async queuedForKey(key: string): Promise<number> {
      const rows = await sql.all(
        `SELECT COUNT(*) AS "n" FROM "InboundEvent" i JOIN "Session" s ON s."id" = i."sessionId" WHERE s."key" = $1 AND i."status" = 'queued'`,
        [key],
      );
      return intColumn.parse(rows[0]?.n);
    },

    async peekQueued(sessionId: string): Promise<Inbound | undefined> {
      const rows = await sql.all(
        `SELECT "payload" FROM "InboundEvent" WHERE "sessionId" = $1 AND "status" = 'queued' ORDER BY "id" LIMIT 1`,
        [sessionId],
      );
      return rows[0]?.payload ? parsePayload(rows[0].payload) : undefined;
    },

    hasQueued,

    /** The session's queued messages with their ids, oldest first (at most `limit`), without claiming them. */
    async queued(sessionId: string, limit = 50): Promise<{ id: number; inbound: Inbound }[]> {
      const rows = await sql.all(
        `SELECT "id", "payload" FROM "InboundEvent" WHERE "sessionId" = $1 AND "status" = 'queued' ORDER BY "id" LIMIT $2`,
        [sessionId, limit],
      );
      return rows.flatMap((row) => (row.payload ? [{ id: intColumn.parse(row.id), inbound: parsePayload(row.payload) }] : []));
    },

    /** claimQueued in a transaction of its own; an empty mailbox costs one cheap read, no transaction. */
    async claimAsMessages(sessionId: string, turnId: string, epoch: number, limit = 50, prepared?: PreparedContents): Promise<Inbound[]> {
      if (!(await hasQueued(sessionId))) return [];
      return sql.transaction((tx) => claimQueued(tx, sessionId, turnId, epoch, limit, prepared));
    },

    /** Sessions with queued messages, for the sweeper that picks up work nobody is running. */
    async sessionsWithQueued(limit = 100): Promise<string[]> {
      const rows = await sql.all(
        `SELECT DISTINCT "sessionId" FROM "InboundEvent" WHERE "status" = 'queued' AND "sessionId" IS NOT NULL LIMIT $1`,
        [limit],
      );
      return rows.map((row) => z.string().parse(row.sessionId));
    },

    /** Drop dedup records older than `before` (they only guard against re-delivery). */
    prune: (before: Date): Promise<number> =>
      sql.run(`DELETE FROM "InboundEvent" WHERE "status" IN ('ignored', 'done') AND "receivedAt" < $1`, [before]),
  };
}
