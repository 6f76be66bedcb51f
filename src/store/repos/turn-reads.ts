// Compound reads for the per-message path: what the gateway needs to route a message or pick a
// session's next turn, in one statement instead of three or four model calls.
import { z } from 'zod';
import type { ChatType } from '../../core/types.ts';
import type { SqlDriver } from '../sql/driver.ts';
import type { SessionRecord, TurnStatus } from '../types.ts';

/** A session with the state of its mailbox: the unfinished turn (if any) and the oldest queued message. */
export interface SessionState {
  session: SessionRecord;
  active?: { id: string; status: TurnStatus };
  /** The oldest queued message's stored payload (JSON), when there is one. */
  queuedPayload?: string;
}

const ACTIVE = `FROM "Turn" t WHERE t."sessionId" = s."id" AND t."status" IN ('running', 'awaiting_approval') ORDER BY t."startedAt" DESC LIMIT 1`;
const COLUMNS = `s."id", s."key", s."channel", s."chatId", s."chatType", s."threadId", s."userId", s."epoch", s."createdAt", s."updatedAt",
  (SELECT t."id" ${ACTIVE}) AS "activeId",
  (SELECT t."status" ${ACTIVE}) AS "activeStatus"`;
const QUEUED = `(SELECT i."payload" FROM "InboundEvent" i WHERE i."sessionId" = s."id" AND i."status" = 'queued' ORDER BY i."id" LIMIT 1) AS "queuedPayload"`;

const rowSchema = z.object({
  id: z.string(),
  key: z.string(),
  channel: z.string(),
  chatId: z.string(),
  chatType: z.enum(['direct', 'group']),
  threadId: z.string().nullable(),
  userId: z.string().nullable(),
  epoch: z.coerce.number(),
  createdAt: z.coerce.date(),
  updatedAt: z.coerce.date(),
  activeId: z.string().nullable(),
  activeStatus: z.enum(['running', 'awaiting_approval']).nullable(),
  queuedPayload: z.string().nullish(),
});

function toState(raw: unknown): SessionState {
  const row = rowSchema.parse(raw);
  const session: SessionRecord = {
    id: row.id,
    key: row.key,
    channel: row.channel,
    chatId: row.chatId,
    chatType: row.chatType satisfies ChatType,
    threadId: row.threadId ?? undefined,
    userId: row.userId ?? undefined,
    epoch: row.epoch,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  return {
    session,
    ...(row.activeId && row.activeStatus ? { active: { id: row.activeId, status: row.activeStatus } } : {}),
    ...(row.queuedPayload ? { queuedPayload: row.queuedPayload } : {}),
  };
}

export function turnReadsRepo(sql: SqlDriver) {
  const byKey = `SELECT ${COLUMNS} FROM "Session" s WHERE s."key" = $1`;
  const byId = `SELECT ${COLUMNS}, ${QUEUED} FROM "Session" s WHERE s."id" = $1`;
  return {
    /** The session of `key` and its unfinished turn; undefined when the session does not exist yet. */
    async sessionByKey(key: string): Promise<Omit<SessionState, 'queuedPayload'> | undefined> {
      const rows = await sql.all(byKey, [key]);
      return rows[0] === undefined ? undefined : toState(rows[0]);
    },

    /** The session, its unfinished turn and its oldest queued message; undefined when the session is gone. */
    async sessionState(id: string): Promise<SessionState | undefined> {
      const rows = await sql.all(byId, [id]);
      return rows[0] === undefined ? undefined : toState(rows[0]);
    },
  };
}
