// The common case of a message for the model, written at once: when its session is idle (no
// unfinished turn, nothing queued) and the session's lease is free, the lease is taken, the message
// recorded as handled (de-duplicated by its event id) and its turn started with its user message,
// all or nothing. Otherwise nothing is written and the caller queues the message (inbound.ts).
// SQLite: one transaction; PostgreSQL: one statement (data-modifying CTEs), one round trip.
import { z } from 'zod';
import { timeOrderedId } from '../time-ordered-id.ts';
import type { Inbound } from '../../core/types.ts';
import { isUniqueViolation } from '../database.ts';
import { intColumn } from '../sql/columns.ts';
import type { SqlDriver, SqlValue } from '../sql/driver.ts';
import type { MessageRecord, TurnOrigin, TurnRecord } from '../types.ts';
import type { CachedWindow, HistoryCache } from './history-cache.ts';
import { appendMessages, writtenRecord } from './messages.ts';
import { MEMORY, type SessionState, sessionColumns, toState } from './turn-reads.ts';
import { createTurn, startedTurn } from './turns.ts';

export interface MessageStart {
  /** The session's key (sessionSpecFor); a session that does not exist yet starts nothing. */
  key: string;
  inbound: Inbound;
  /** Takes the lease for this owner, only when no one (this owner included) holds it. */
  owner: string;
  leaseMs: number;
  origin: TurnOrigin;
  /** The user message's text (textForModel). */
  content: string;
}

/** Started: the lease is held and the turn runs. 'duplicate': the event was seen before. Undefined: not idle, nothing written. */
export type MessageStartResult =
  | {
      state: SessionState;
      turn: TurnRecord;
      /** The process's cached history of the session was shown complete (the turn's first read may skip the database). */
      historyChecked: boolean;
    }
  | 'duplicate'
  | undefined;

type Started = { state: SessionState; turn: TurnRecord; message: MessageRecord; counted: CachedWindow | undefined };

const IDLE = `("leaseOwner" IS NULL OR "leaseUntil" < $5)
  AND NOT EXISTS (SELECT 1 FROM "Turn" t WHERE t."sessionId" = "Session"."id" AND t."status" IN ('running', 'awaiting_approval'))
  AND NOT EXISTS (SELECT 1 FROM "InboundEvent" i WHERE i."sessionId" = "Session"."id" AND i."status" = 'queued')`;

const CONVERSATION = `FROM "Message" m WHERE m."sessionId" = "Session"."id" AND m."epoch" = "Session"."epoch"`;

/**
 * $1 owner, $2 lease until, $3 now, $4 key, $5 now (expired leases), on PostgreSQL $6 the history
 * cache's window start: in the order they appear (SQLite's are positional). Also returns the
 * conversation's newest id, and on PostgreSQL its rows from $6 on, as they were before this start
 * (the cache's check, see verify). SQLite needs no count: it gives ids under its write lock, one
 * writer at a time, so no row is ever committed below the newest id (and messages are never
 * deleted but with their session).
 */
const leaseIfIdle = (provider: SqlDriver['provider'], cast = '') =>
  `UPDATE "Session" SET "leaseOwner" = $1, "leaseUntil" = $2, "updatedAt" = $3 WHERE "key" = $4 AND ${IDLE}
    RETURNING ${sessionColumns('"Session"')}, NULL${cast} AS "activeId", NULL${cast} AS "activeStatus", ${MEMORY[provider]},
    ${provider === 'postgresql' ? `(SELECT COUNT(*) ${CONVERSATION} AND m."id" >= $6)` : 'NULL'} AS "windowRows",
    (SELECT MAX(m."id") ${CONVERSATION}) AS "lastMessageId"`;

const leaseValues = (input: MessageStart, now: Date, window: CachedWindow | undefined, provider: SqlDriver['provider']): SqlValue[] => [
  input.owner,
  new Date(now.getTime() + input.leaseMs),
  now,
  input.key,
  now,
  // Without a cached window nothing is counted (no id is this high; PostgreSQL's ids are int4).
  ...(provider === 'postgresql' ? [window?.fromId ?? 2_147_483_647] : []),
];

const countedRow = z.object({ windowRows: intColumn.nullable(), lastMessageId: intColumn.nullable() });

function countedOf(row: Record<string, unknown>, window: CachedWindow | undefined): CachedWindow | undefined {
  if (!window) return undefined;
  const counted = countedRow.parse(row);
  // Not counted (SQLite): the newest id alone shows whether rows were added.
  return { fromId: window.fromId, rows: counted.windowRows ?? window.rows, lastId: counted.lastMessageId ?? 0 };
}

const SQLITE_LEASE_IF_IDLE = leaseIfIdle('sqlite');

class NotIdle extends Error {}

async function inTransaction(sql: SqlDriver, input: MessageStart, window: CachedWindow | undefined): Promise<Started> {
  return sql.transaction(async (tx) => {
    const now = new Date();
    const rows = await tx.all(SQLITE_LEASE_IF_IDLE, leaseValues(input, now, window, 'sqlite'));
    if (!rows[0]) throw new NotIdle();
    const state = toState(rows[0]);
    const { session } = state;
    const turnId = timeOrderedId();
    await tx.run(
      `INSERT INTO "InboundEvent" ("channel", "eventId", "sessionId", "status", "payload", "receivedAt", "turnId") VALUES ($1, $2, $3, 'done', NULL, $4, $5)`,
      [input.inbound.channel, input.inbound.eventId, session.id, now, turnId],
    );
    const turn = await createTurn(tx, { id: turnId, sessionId: session.id, epoch: session.epoch, origin: input.origin });
    const [message] = await appendMessages(tx, [userMessage(input, session.id, session.epoch, turnId)]);
    return { state, turn, message: message!, counted: countedOf(rows[0], window) };
  });
}

function userMessage(input: MessageStart, sessionId: string, epoch: number, turnId: string) {
  return {
    sessionId,
    epoch,
    turnId,
    role: 'user' as const,
    content: input.content,
    senderId: input.inbound.sender.id,
    senderName: input.inbound.sender.displayName,
  };
}

/** After leaseIfIdle's: $7 channel, $8 event id, $9 turn id, $10 origin, $11 content, $12 sender id, $13 sender name. */
const POSTGRES_START = `WITH s AS (${leaseIfIdle('postgresql', '::text')}),
  i AS (INSERT INTO "InboundEvent" ("channel", "eventId", "sessionId", "status", "payload", "receivedAt", "turnId")
    SELECT $7, $8, s."id", 'done', NULL, $3, $9 FROM s),
  t AS (INSERT INTO "Turn" ("id", "sessionId", "epoch", "status", "origin", "startedAt", "updatedAt")
    SELECT $9, s."id", s."epoch", 'running', $10, $3, $3 FROM s RETURNING "id" AS "turnId"),
  m AS (INSERT INTO "Message" ("sessionId", "epoch", "turnId", "role", "content", "isError", "senderId", "senderName", "createdAt")
    SELECT s."id", s."epoch", $9, 'user', $11, false, $12, $13, $3 FROM s RETURNING "id" AS "message_id")
  SELECT * FROM s, t, m`;

async function inOneStatement(sql: SqlDriver, input: MessageStart, window: CachedWindow | undefined): Promise<Started | undefined> {
  const now = new Date();
  const turnId = timeOrderedId();
  const { inbound } = input;
  const rows = await sql.all(POSTGRES_START, [
    ...leaseValues(input, now, window, 'postgresql'),
    inbound.channel,
    inbound.eventId,
    turnId,
    JSON.stringify(input.origin),
    input.content,
    inbound.sender.id,
    inbound.sender.displayName,
  ]);
  const row = rows[0];
  if (!row) return undefined;
  const state = toState(row);
  const { session } = state;
  const message = writtenRecord(userMessage(input, session.id, session.epoch, turnId), intColumn.parse(row.message_id), now);
  const turn = startedTurn({ id: turnId, sessionId: session.id, epoch: session.epoch, origin: input.origin }, now);
  return { state, turn, message, counted: countedOf(row, window) };
}

async function startFromMessage(sql: SqlDriver, histories: HistoryCache, input: MessageStart): Promise<MessageStartResult> {
  const window = histories.windowOf(input.key);
  let started: Started | undefined;
  try {
    started = await (sql.provider === 'postgresql' ? inOneStatement(sql, input, window) : inTransaction(sql, input, window));
  } catch (error) {
    if (error instanceof NotIdle) return undefined;
    if (isUniqueViolation(error)) return 'duplicate';
    throw error;
  }
  if (!started) return undefined;
  const { session } = started.state;
  const historyChecked = histories.verify(input.key, session.id, session.epoch, started.counted, started.message);
  return { state: started.state, turn: started.turn, historyChecked };
}

/** `histories`: the process's history cache, checked by each start's own count so that its turn reads no history. */
export function turnStartRepo(sql: SqlDriver, histories: HistoryCache) {
  return { fromMessage: (input: MessageStart) => startFromMessage(sql, histories, input) };
}
