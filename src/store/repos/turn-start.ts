// The common case of a message for the model, written at once: when its session is idle (no
// unfinished turn, nothing queued) and the session's lease is free, the lease is taken, the message
// recorded as handled (de-duplicated by its event id) and its turn started with its user message,
// all or nothing. Otherwise nothing is written and the caller queues the message (inbound.ts).
// SQLite: one transaction; PostgreSQL: one statement (data-modifying CTEs), one round trip.
import { randomUUID } from 'node:crypto';
import type { Inbound } from '../../core/types.ts';
import { isUniqueViolation } from '../database.ts';
import type { SqlDriver, SqlValue } from '../sql/driver.ts';
import type { TurnOrigin, TurnRecord } from '../types.ts';
import { appendMessages } from './messages.ts';
import { MEMORY, type SessionState, sessionColumns, toState } from './turn-reads.ts';
import { createTurn, PREFIXED, prefixedTurn } from './turns.ts';

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
export type MessageStartResult = { state: SessionState; turn: TurnRecord } | 'duplicate' | undefined;

const IDLE = `("leaseOwner" IS NULL OR "leaseUntil" < $5)
  AND NOT EXISTS (SELECT 1 FROM "Turn" t WHERE t."sessionId" = "Session"."id" AND t."status" IN ('running', 'awaiting_approval'))
  AND NOT EXISTS (SELECT 1 FROM "InboundEvent" i WHERE i."sessionId" = "Session"."id" AND i."status" = 'queued')`;

/** $1 owner, $2 lease until, $3 now, $4 key, $5 now (expired leases): in the order they appear (SQLite's are positional). */
const leaseIfIdle = (provider: SqlDriver['provider'], cast: string) =>
  `UPDATE "Session" SET "leaseOwner" = $1, "leaseUntil" = $2, "updatedAt" = $3 WHERE "key" = $4 AND ${IDLE}
    RETURNING ${sessionColumns('"Session"')}, NULL${cast} AS "activeId", NULL${cast} AS "activeStatus", ${MEMORY[provider]}`;

const leaseValues = (input: MessageStart, now: Date): SqlValue[] => [
  input.owner,
  new Date(now.getTime() + input.leaseMs),
  now,
  input.key,
  now,
];

class NotIdle extends Error {}

async function inTransaction(sql: SqlDriver, input: MessageStart): Promise<MessageStartResult> {
  return sql.transaction(async (tx) => {
    const now = new Date();
    const rows = await tx.all(leaseIfIdle(sql.provider, ''), leaseValues(input, now));
    if (!rows[0]) throw new NotIdle();
    const state = toState(rows[0]);
    const { session } = state;
    const turnId = randomUUID();
    await tx.run(
      `INSERT INTO "InboundEvent" ("channel", "eventId", "sessionId", "status", "payload", "receivedAt", "turnId") VALUES ($1, $2, $3, 'done', NULL, $4, $5)`,
      [input.inbound.channel, input.inbound.eventId, session.id, now, turnId],
    );
    const turn = await createTurn(tx, { id: turnId, sessionId: session.id, epoch: session.epoch, origin: input.origin });
    await appendMessages(tx, [userMessage(input, session.id, session.epoch, turnId)]);
    return { state, turn };
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

async function inOneStatement(sql: SqlDriver, input: MessageStart): Promise<MessageStartResult> {
  const now = new Date();
  const turnId = randomUUID();
  const { inbound } = input;
  const rows = await sql.all(
    `WITH s AS (${leaseIfIdle(sql.provider, '::text')}),
      i AS (INSERT INTO "InboundEvent" ("channel", "eventId", "sessionId", "status", "payload", "receivedAt", "turnId")
        SELECT $6, $7, s."id", 'done', NULL, $3, $8 FROM s),
      t AS (INSERT INTO "Turn" ("id", "sessionId", "epoch", "status", "origin", "startedAt", "updatedAt")
        SELECT $8, s."id", s."epoch", 'running', $9, $3, $3 FROM s RETURNING ${PREFIXED}),
      m AS (INSERT INTO "Message" ("sessionId", "epoch", "turnId", "role", "content", "isError", "senderId", "senderName", "createdAt")
        SELECT s."id", s."epoch", $8, 'user', $10, false, $11, $12, $3 FROM s)
      SELECT * FROM s, t`,
    [
      ...leaseValues(input, now),
      inbound.channel,
      inbound.eventId,
      turnId,
      JSON.stringify(input.origin),
      input.content,
      inbound.sender.id,
      inbound.sender.displayName,
    ],
  );
  const row = rows[0];
  return row ? { state: toState(row), turn: prefixedTurn(row) } : undefined;
}

async function startFromMessage(sql: SqlDriver, input: MessageStart): Promise<MessageStartResult> {
  try {
    return await (sql.provider === 'postgresql' ? inOneStatement(sql, input) : inTransaction(sql, input));
  } catch (error) {
    if (error instanceof NotIdle) return undefined;
    if (isUniqueViolation(error)) return 'duplicate';
    throw error;
  }
}

export function turnStartRepo(sql: SqlDriver) {
  return { fromMessage: (input: MessageStart) => startFromMessage(sql, input) };
}
