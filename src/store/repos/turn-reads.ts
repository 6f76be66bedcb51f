// Compound reads for the per-message path: what the gateway needs to route a message or pick a
// session's next turn, in one statement instead of three or four model calls. Taking and releasing
// a session's lease return the same state (UPDATE … RETURNING), so the worker's look at the mailbox
// costs no statement of its own.
import { z } from 'zod';
import type { ChatType } from '../../core/types.ts';
import { unprefixed } from '../sql/columns.ts';
import type { SqlDriver } from '../sql/driver.ts';
import type { MemoryFactRecord, SessionRecord, TurnStatus } from '../types.ts';

/** A session with the state of its mailbox: the unfinished turn (if any) and the oldest queued message. */
export interface SessionState {
  session: SessionRecord;
  active?: { id: string; status: TurnStatus };
  /** The oldest queued message's stored payload (JSON), when there is one. */
  queuedPayload?: string;
  /** The session's memory facts by key (taking the lease reads them: its turn shows them). */
  memory?: MemoryFactRecord[];
}

// `table` names the session row: `s` in a SELECT; in an UPDATE … RETURNING, "Session" itself
// (SQLite does not resolve an UPDATE's alias inside RETURNING's subqueries).
const active = (table: string, except = '') =>
  `FROM "Turn" t WHERE t."sessionId" = ${table}."id" AND t."status" IN ('running', 'awaiting_approval')${except} ORDER BY t."startedAt" DESC LIMIT 1`;
const SESSION_FIELDS = ['id', 'key', 'channel', 'chatId', 'chatType', 'threadId', 'userId', 'epoch', 'createdAt', 'updatedAt'];
/** The session row's own columns (each named `prefix`<column>). */
export const sessionColumns = (table: string, prefix = '') =>
  SESSION_FIELDS.map((field) => `${table}."${field}"${prefix ? ` AS "${prefix}${field}"` : ''}`).join(', ');
const columns = (table: string) => `${sessionColumns(table)},
  (SELECT t."id" ${active(table)}) AS "activeId",
  (SELECT t."status" ${active(table)}) AS "activeStatus"`;
const queued = (table: string, as = 'queuedPayload') =>
  `(SELECT i."payload" FROM "InboundEvent" i WHERE i."sessionId" = ${table}."id" AND i."status" = 'queued' ORDER BY i."id" LIMIT 1) AS "${as}"`;
const COLUMNS = columns('s');
const QUEUED = queued('s');
const RETURNING = `RETURNING ${columns('"Session"')}, ${queued('"Session"')}`;
/** The session's memory facts by key as one JSON array (updatedAt as ISO text in UTC), for the lease's RETURNING. */
export const MEMORY = {
  sqlite: `(SELECT json_group_array(json_object('key', f."key", 'value', f."value", 'updatedAt', f."updatedAt") ORDER BY f."key")
    FROM "MemoryFact" f WHERE f."sessionId" = "Session"."id") AS "memory"`,
  postgresql: `(SELECT coalesce(json_agg(json_build_object('key', f."key", 'value', f."value",
    'updatedAt', to_char(f."updatedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY f."key"), '[]'::json)::text
    FROM "MemoryFact" f WHERE f."sessionId" = "Session"."id") AS "memory"`,
};
const memoryFacts = z.array(z.object({ key: z.string(), value: z.string(), updatedAt: z.coerce.date() }));

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
  memory: z.string().nullish(),
});

export function toState(raw: unknown): SessionState {
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
    ...(typeof row.memory === 'string' ? { memory: memoryFacts.parse(JSON.parse(row.memory)) } : {}),
  };
}

const RELEASED = 'released_';

/**
 * Releases the lease `owner` holds on a session within the write that ends one of its turns, and
 * returns the session's state as released with each column named released_<column> (read back by
 * releasedState). The ending turn is not counted as unfinished: a PostgreSQL CTE does not see its
 * own statement's update of it. Placeholders $first… : now, session id, owner, turn id, turn id;
 * `when` (optional) adds a condition.
 */
export function releaseWithTurnEnd(first: number, when = ''): string {
  const [now, id, owner, turn1, turn2] = [0, 1, 2, 3, 4].map((i) => `$${first + i}`);
  const table = '"Session"';
  return `UPDATE "Session" SET "leaseOwner" = NULL, "leaseUntil" = NULL, "updatedAt" = ${now}
    WHERE "id" = ${id} AND "leaseOwner" = ${owner}${when} RETURNING ${sessionColumns(table, RELEASED)},
    (SELECT t."id" ${active(table, ` AND t."id" <> ${turn1}`)}) AS "${RELEASED}activeId",
    (SELECT t."status" ${active(table, ` AND t."id" <> ${turn2}`)}) AS "${RELEASED}activeStatus", ${queued(table, `${RELEASED}queuedPayload`)}`;
}

export const releaseWithTurnEndValues = (sessionId: string, owner: string, turnId: string, now = new Date()) => [
  now,
  sessionId,
  owner,
  turnId,
  turnId,
];

/** The state releaseWithTurnEnd returned in `row`; undefined when it released nothing (the lease was not held). */
export function releasedState(row: Record<string, unknown> | undefined): SessionState | undefined {
  if (row?.[`${RELEASED}id`] == null) return undefined;
  return toState(unprefixed(row, RELEASED));
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

    /**
     * Takes (or extends) the session's lease with one conditional update, so exactly one process
     * wins even when several try at once; returns the session's state as it holds the lease (with
     * its memory facts), or undefined when the lease is held elsewhere (or the session is gone).
     */
    async takeLease(id: string, owner: string, ttlMs: number): Promise<SessionState | undefined> {
      const now = new Date();
      const rows = await sql.all(
        `UPDATE "Session" SET "leaseOwner" = $1, "leaseUntil" = $2, "updatedAt" = $3
          WHERE "id" = $4 AND ("leaseOwner" IS NULL OR "leaseOwner" = $5 OR "leaseUntil" < $6) ${RETURNING}, ${MEMORY[sql.provider]}`,
        [owner, new Date(now.getTime() + ttlMs), now, id, owner, now],
      );
      return rows[0] === undefined ? undefined : toState(rows[0]);
    },

    /**
     * Releases the lease `owner` holds and returns the session's state as released (what is left to
     * do); undefined when `owner` did not hold it (it expired and was taken, or the session is gone).
     */
    async releaseLease(id: string, owner: string): Promise<SessionState | undefined> {
      const rows = await sql.all(
        `UPDATE "Session" SET "leaseOwner" = NULL, "leaseUntil" = NULL, "updatedAt" = $1
          WHERE "id" = $2 AND "leaseOwner" = $3 ${RETURNING}`,
        [new Date(), id, owner],
      );
      return rows[0] === undefined ? undefined : toState(rows[0]);
    },
  };
}
