import { z } from 'zod';
import { timeOrderedId } from '../time-ordered-id.ts';
import type { Inbound } from '../../core/types.ts';
import { boolColumn, dateColumn, intColumn, optionalText, unprefixed } from '../sql/columns.ts';
import type { SqlDriver, SqlRunner, SqlValue } from '../sql/driver.ts';
import { claimQueued, type PreparedContents } from './inbound.ts';
import type { HistoryCache } from './history-cache.ts';
import { insertEachWhileTurn, insertManyFrom, insertOneFrom, queuedLook, writtenRecords } from './messages.ts';
import { owedRecordSql, ReplyStateSchema } from './owed-answers.ts';
import { releasedState, releaseWithTurnEnd, releaseWithTurnEndValues, type SessionState } from './turn-reads.ts';
import type { MessageRecord, NewMessage, ReplyState, TurnOrigin, TurnRecord, TurnStatus, Usage } from '../types.ts';

/** A damaged or foreign value is ignored: the continued answer is then sent as a new message. */
function parseReplyState(raw: string | null): ReplyState | undefined {
  if (!raw) return undefined;
  try {
    const parsed = ReplyStateSchema.safeParse(JSON.parse(raw));
    return parsed.success && (parsed.data.refs.length > 0 || parsed.data.unsent) ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const COLUMNS = `"id", "sessionId", "epoch", "status", "rounds", "promptTokens", "completionTokens", "totalTokens", "error", "cancelRequested", "cancelledBy", "origin", "replyState", "startedAt", "endedAt"`;
const T_COLUMNS = COLUMNS.replace(/"(\w+)"/g, 't."$1"');

const rowSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  epoch: intColumn,
  status: z.enum(['running', 'awaiting_approval', 'done', 'failed', 'cancelled']),
  rounds: intColumn,
  promptTokens: intColumn,
  completionTokens: intColumn,
  totalTokens: intColumn,
  error: optionalText,
  cancelRequested: boolColumn,
  cancelledBy: optionalText,
  origin: z.string(),
  replyState: z.string().nullable(),
  startedAt: dateColumn,
  endedAt: dateColumn.nullable(),
});

function toRecord(raw: unknown): TurnRecord {
  const row = rowSchema.parse(raw);
  const replyState = parseReplyState(row.replyState);
  return {
    id: row.id,
    sessionId: row.sessionId,
    epoch: row.epoch,
    status: row.status,
    rounds: row.rounds,
    usage: { promptTokens: row.promptTokens, completionTokens: row.completionTokens, totalTokens: row.totalTokens },
    error: row.error,
    cancelRequested: row.cancelRequested,
    cancelledBy: row.cancelledBy,
    origin: JSON.parse(row.origin) as TurnOrigin,
    ...(replyState ? { replyState } : {}),
    startedAt: row.startedAt,
    endedAt: row.endedAt ?? undefined,
  };
}

/** What a round's write changes of its turn. */
interface RoundTotals {
  status: TurnStatus;
  rounds: number;
  usage: Usage;
  endedAt: Date | undefined;
}

const TOTALS = `"status", "rounds", "promptTokens", "completionTokens", "totalTokens", "endedAt"`;
/** TOTALS named turn_<column>, for PostgreSQL's round statements, whose rows have the message's columns beside them. */
const PREFIXED_TOTALS = TOTALS.replace(/"(\w+)"/g, '"$1" AS "turn_$1"');
const totalsSchema = rowSchema.pick({
  status: true,
  rounds: true,
  promptTokens: true,
  completionTokens: true,
  totalTokens: true,
  endedAt: true,
});

function toTotals(raw: unknown): RoundTotals {
  const row = totalsSchema.parse(raw);
  return {
    status: row.status,
    rounds: row.rounds,
    usage: { promptTokens: row.promptTokens, completionTokens: row.completionTokens, totalTokens: row.totalTokens },
    endedAt: row.endedAt ?? undefined,
  };
}

const FINAL: readonly TurnStatus[] = ['done', 'failed', 'cancelled'];
const UNFINISHED = `('running', 'awaiting_approval')`;

/**
 * The record of a turn just started at `now`, as reading its row back would give it: what was
 * written (the origin through JSON, as the row keeps it) and the columns' defaults.
 */
export function startedTurn(input: { id: string; sessionId: string; epoch: number; origin: TurnOrigin }, now: Date): TurnRecord {
  return {
    id: input.id,
    sessionId: input.sessionId,
    epoch: input.epoch,
    status: 'running',
    rounds: 0,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    error: undefined,
    cancelRequested: false,
    cancelledBy: undefined,
    origin: JSON.parse(JSON.stringify(input.origin)) as TurnOrigin,
    startedAt: new Date(now.getTime()),
    endedAt: undefined,
  };
}

export async function createTurn(
  db: SqlRunner,
  input: { id?: string; sessionId: string; epoch: number; origin: TurnOrigin },
): Promise<TurnRecord> {
  const now = new Date();
  const id = input.id ?? timeOrderedId();
  await db.run(
    `INSERT INTO "Turn" ("id", "sessionId", "epoch", "status", "origin", "startedAt", "updatedAt") VALUES ($1, $2, $3, 'running', $4, $5, $6)`,
    [id, input.sessionId, input.epoch, JSON.stringify(input.origin), now, now],
  );
  return startedTurn({ ...input, id }, now);
}

async function addRound(db: SqlRunner, id: string, usage: Usage | undefined): Promise<void> {
  const changed = await db.run(
    `UPDATE "Turn" SET "rounds" = "rounds" + 1, "promptTokens" = "promptTokens" + $1, "completionTokens" = "completionTokens" + $2,
      "totalTokens" = "totalTokens" + $3, "cachedTokens" = "cachedTokens" + $4, "updatedAt" = $5, "model" = COALESCE($6, "model") WHERE "id" = $7`,
    [
      usage?.promptTokens ?? 0,
      usage?.completionTokens ?? 0,
      usage?.totalTokens ?? 0,
      usage?.cachedTokens ?? 0,
      new Date(),
      usage?.model ?? null,
      id,
    ],
  );
  if (changed !== 1) throw new Error(`Turn ${id} not found`);
}

/** Records the messages of the answer being streamed, only while the turn runs. */
async function saveReplyState(db: SqlRunner, id: string, state: ReplyState): Promise<boolean> {
  const changed = await db.run(`UPDATE "Turn" SET "replyState" = $1, "updatedAt" = $2 WHERE "id" = $3 AND "status" = 'running'`, [
    JSON.stringify(state),
    new Date(),
    id,
  ]);
  return changed === 1;
}

export interface RoundEnd {
  turnId: string;
  usage: Usage | undefined;
  message: NewMessage;
  finish?: 'done';
  /** With `finish`: also release the session's lease this owner holds, in the same write. */
  releaseLeaseOf?: string;
  /** With `finish`: the answer is recorded as owed by this lease owner until it is delivered (owed-answers.ts). */
  owedBy?: string;
}

export interface RoundEnded {
  assistant: MessageRecord;
  totals: RoundTotals;
  /** The session's state as its lease was released (releaseLeaseOf); undefined when it was not held. */
  released?: SessionState;
}

const RELEASE_WITH_TURN_END = releaseWithTurnEnd(1);

/**
 * The round's usage, and with `finish` the turn's end (its answer recorded as owed when `owedBy`):
 * $1..$5 (and $6, $7, and $8 for the owner), the answering model's name (kept when absent) next to last, the turn id last.
 */
function roundUpdate(input: RoundEnd, now: Date, returning: string): { text: string; values: SqlValue[] } {
  const owed = input.finish && input.owedBy !== undefined;
  const end = input.finish ? `, "status" = $6, "error" = NULL, "endedAt" = $7, "replyState" = ${owed ? owedRecordSql(8) : 'NULL'}` : '';
  const values: SqlValue[] = [
    input.usage?.promptTokens ?? 0,
    input.usage?.completionTokens ?? 0,
    input.usage?.totalTokens ?? 0,
    input.usage?.cachedTokens ?? 0,
    now,
    ...(input.finish ? [input.finish, now] : []),
    ...(owed ? [JSON.stringify(input.owedBy)] : []),
    input.usage?.model ?? null,
    input.turnId,
  ];
  return {
    text: `UPDATE "Turn" SET "rounds" = "rounds" + 1, "promptTokens" = "promptTokens" + $1, "completionTokens" = "completionTokens" + $2,
      "totalTokens" = "totalTokens" + $3, "cachedTokens" = "cachedTokens" + $4, "updatedAt" = $5${end},
      "model" = COALESCE($${values.length - 1}, "model") WHERE "id" = $${values.length} RETURNING ${returning}`,
    values,
  };
}

/**
 * One model call's writes. SQLite: one statement each, in an order where every prefix is a state
 * recovery continues from (each statement is atomic, and they reach the file in order, a power
 * loss included): the assistant message (only when its turn exists), then the round and
 * its usage (with `finish`, the turn's end), then the session's lease. A turn stopped after the
 * message is continued from it (an answer already written ends the turn as it is; open tool calls
 * are settled as after any crash); one stopped after its end holds a lease the next start
 * reclaims (one runtime per SQLite file). PostgreSQL: all in one statement; a round that asked for
 * tools is a relaxed write (SqlDriver.relaxed): the turn writes durably before any call has an
 * effect (its start record, an approval), and a round lost with the database server is asked again.
 */
async function endRound(db: SqlDriver, input: RoundEnd): Promise<RoundEnded> {
  if (db.provider === 'postgresql') return endRoundInOneStatement(db, input);
  const now = new Date();
  const insert = insertEachWhileTurn(input.turnId, [input.message], now);
  const inserted = await db.all(insert.text, insert.values);
  if (!inserted[0]) throw new Error(`Turn ${input.turnId} not found`);
  const [assistant] = writtenRecords([input.message], inserted, now) as [MessageRecord];
  const update = roundUpdate(input, now, TOTALS);
  const [updated] = await db.all(update.text, update.values);
  if (!updated) throw new Error(`Turn ${input.turnId} not found`);
  const totals = toTotals(updated);
  if (!input.finish || !input.releaseLeaseOf) return { assistant, totals };
  try {
    const [released] = await db.all(
      RELEASE_WITH_TURN_END,
      releaseWithTurnEndValues(input.message.sessionId, input.releaseLeaseOf, input.turnId, now),
    );
    return { assistant, totals, released: releasedState(released) };
  } catch {
    // The turn has ended: its answer must still go out. Unreleased here, the lease is released
    // (or looked at) by the session's worker, as when another process had taken it over.
    return { assistant, totals };
  }
}

/**
 * PostgreSQL: the same writes as one statement (data-modifying CTEs): one round trip, atomic, and
 * no message when the turn is gone.
 */
async function endRoundInOneStatement(db: SqlDriver, input: RoundEnd): Promise<RoundEnded> {
  const now = new Date();
  const { text: update, values: updateValues } = roundUpdate(input, now, PREFIXED_TOTALS);
  const insert = insertOneFrom('t', input.message, now);
  // The INSERT's placeholders follow the UPDATE's.
  const shifted = insert.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + updateValues.length}`);
  const values = [...updateValues, ...insert.values];
  // The lease goes with the turn's end (not without it: when the turn is gone, nothing is written).
  const release =
    input.finish && input.releaseLeaseOf
      ? { cte: `, r AS (${releaseWithTurnEnd(values.length + 1, ' AND EXISTS (SELECT 1 FROM t)')})`, join: ' LEFT JOIN r ON true' }
      : undefined;
  if (release) values.push(...releaseWithTurnEndValues(input.message.sessionId, input.releaseLeaseOf!, input.turnId, now));
  const rows = await (input.finish ? db : db.relaxed).all(
    `WITH t AS (${update}), m AS (${shifted})${release?.cte ?? ''} SELECT * FROM m CROSS JOIN t${release?.join ?? ''}`,
    values,
  );
  const row = rows[0];
  if (!row) throw new Error(`Turn ${input.turnId} not found`);
  const released = release ? releasedState(row) : undefined;
  const [assistant] = writtenRecords([input.message], rows, now) as [MessageRecord];
  return { assistant, totals: toTotals(unprefixed(row, 'turn_')), ...(released ? { released } : {}) };
}

export interface ToolRoundEnd {
  turnId: string;
  usage: Usage | undefined;
  /** The assistant message that asked for the calls. */
  message: NewMessage;
  /** The calls' results, in call order. */
  results: NewMessage[];
}

export interface ToolRoundEnded {
  assistant: MessageRecord;
  results: MessageRecord[];
  totals: RoundTotals;
  /** The session had queued messages as the round was written. */
  queued: boolean;
}

/**
 * A tool round whose calls ran before it was written (calls that may run again, which no one had
 * to decide on): the round and its usage, its assistant message and the results, as a relaxed
 * write (losing it repeats the round); nothing when the turn is gone. PostgreSQL: one statement.
 * SQLite: the messages (one statement), then the round, an order where every prefix is a state
 * recovery continues from (a turn cut after its messages goes on to its next round).
 */
async function endToolRound(db: SqlDriver, input: ToolRoundEnd): Promise<ToolRoundEnded> {
  const now = new Date();
  const round = { turnId: input.turnId, usage: input.usage, message: input.message };
  const messages = [input.message, ...input.results];
  if (db.provider === 'postgresql') {
    const { text: update, values: updateValues } = roundUpdate(round, now, PREFIXED_TOTALS);
    const insert = insertManyFrom('t', messages, now, updateValues.length + 1);
    const values = [...updateValues, ...insert.values, input.message.sessionId];
    const rows = await db.relaxed.all(
      `WITH t AS (${update}), m AS (${insert.text}) SELECT m.*, t.*, ${queuedLook(values.length)} FROM m CROSS JOIN t`,
      values,
    );
    if (!rows[0]) throw new Error(`Turn ${input.turnId} not found`);
    const [assistant, ...results] = writtenRecords(messages, rows, now);
    return { assistant: assistant!, results, totals: toTotals(unprefixed(rows[0], 'turn_')), queued: boolColumn.parse(rows[0].queued) };
  }
  const insert = insertEachWhileTurn(input.turnId, messages, now);
  const inserted = await db.relaxed.all(`${insert.text}, ${queuedLook(insert.values.length + 1)}`, [
    ...insert.values,
    input.message.sessionId,
  ]);
  if (!inserted[0]) throw new Error(`Turn ${input.turnId} not found`);
  const update = roundUpdate(round, now, TOTALS);
  const [updated] = await db.relaxed.all(update.text, update.values);
  if (!updated) throw new Error(`Turn ${input.turnId} not found`);
  const [assistant, ...results] = writtenRecords(messages, inserted, now);
  return { assistant: assistant!, results, totals: toTotals(updated), queued: boolColumn.parse(inserted[0].queued) };
}

/** Thrown inside a turn start to roll it back when there was nothing to answer. */
class NothingQueued extends Error {}

export function turnsRepo(sql: SqlDriver, histories: HistoryCache) {
  const one = async (text: string, values: (string | number | boolean | Date | null)[]) => {
    const rows = await sql.all(text, values);
    return rows[0] ? toRecord(rows[0]) : undefined;
  };
  return {
    /**
     * Whether releasing the lease with a turn's end (RoundEnd.releaseLeaseOf) saves a statement:
     * on PostgreSQL it rides in the round's one statement (one round trip less); on SQLite it is a
     * statement of its own either way, and better made after the answer has gone out.
     */
    releaseRidesOnTurnEnd: sql.provider === 'postgresql',

    create: (input: { sessionId: string; epoch: number; origin: TurnOrigin }) => createTurn(sql, input),

    /**
     * Starts a turn for the session's queued messages: the turn, the claimed inbound events and
     * their user messages are written in one transaction. Undefined (nothing written) when no
     * message was queued.
     */
    async startWithQueued(input: {
      sessionId: string;
      epoch: number;
      origin: TurnOrigin;
      /** Contents made beforehand for some of the queued messages (their attachments read). */
      prepared?: PreparedContents;
    }): Promise<{ turn: TurnRecord; claimed: Inbound[] } | undefined> {
      try {
        return await sql.transaction(async (tx) => {
          const turn = await createTurn(tx, { sessionId: input.sessionId, epoch: input.epoch, origin: input.origin });
          const claimed = await claimQueued(tx, input.sessionId, turn.id, input.epoch, 50, input.prepared);
          if (claimed.length === 0) throw new NothingQueued();
          return { turn, claimed };
        });
      } catch (error) {
        if (error instanceof NothingQueued) return undefined;
        throw error;
      }
    },

    get: (id: string): Promise<TurnRecord | undefined> => one(`SELECT ${COLUMNS} FROM "Turn" WHERE "id" = $1`, [id]),

    /**
     * Conditional status change; true when this caller made it (exactly-once across processes). A
     * final status clears the reply state; a suspended turn taken up again (→ running) starts it
     * afresh at its next round (the text before the prompts is shown above them already).
     */
    async transition(id: string, from: TurnStatus | TurnStatus[], to: TurnStatus): Promise<boolean> {
      const froms = Array.isArray(from) ? from : [from];
      const final = FINAL.includes(to);
      const now = new Date();
      const list = froms.map((_, i) => `$${i + 5}`).join(', ');
      const reopened = to === 'running' ? `'{"fromRound":' || ("rounds" + 1) || ',"refs":[]}'` : `"replyState"`;
      const changed = await sql.run(
        `UPDATE "Turn" SET "status" = $1, "endedAt" = $2, "replyState" = CASE WHEN $3 THEN NULL ELSE ${reopened} END, "updatedAt" = $4
          WHERE "status" IN (${list}) AND "id" = $${froms.length + 5}`,
        [to, final ? now : null, final, now, ...froms, id],
      );
      return changed === 1;
    },

    /** `owedBy` (with 'done'): the answer is recorded as owed by this lease owner until it is delivered. */
    async finish(
      id: string,
      status: Extract<TurnStatus, 'done' | 'failed' | 'cancelled'>,
      error?: string,
      owedBy?: string,
    ): Promise<TurnRecord> {
      const now = new Date();
      const owed = status === 'done' && owedBy !== undefined;
      const record = await one(
        `UPDATE "Turn" SET "status" = $1, "error" = $2, "endedAt" = $3, "updatedAt" = $4, "replyState" = ${owed ? owedRecordSql(5) : 'NULL'}
          WHERE "id" = $${owed ? 6 : 5} RETURNING ${COLUMNS}`,
        [status, error ?? null, now, now, ...(owed ? [JSON.stringify(owedBy)] : []), id],
      );
      if (!record) throw new Error(`Turn ${id} not found`);
      return record;
    },

    /**
     * What was streamed so far is final (it precedes the approval prompt). `owedBy`: the prompts are
     * recorded as owed by this lease owner until they are sent (owed-answers.ts).
     */
    async suspend(id: string, owedBy?: string): Promise<void> {
      const owed = owedBy !== undefined;
      const changed = await sql.run(
        `UPDATE "Turn" SET "status" = 'awaiting_approval', "updatedAt" = $1, "replyState" = ${owed ? owedRecordSql(2) : 'NULL'}
          WHERE "id" = $${owed ? 3 : 2}`,
        [new Date(), ...(owed ? [JSON.stringify(owedBy)] : []), id],
      );
      if (changed !== 1) throw new Error(`Turn ${id} not found`);
    },

    saveReplyState: (id: string, state: ReplyState) => saveReplyState(sql, id, state),

    addRound: (id: string, usage: Usage | undefined) => addRound(sql, id, usage),

    async endRound(input: RoundEnd): Promise<RoundEnded> {
      const ended = await endRound(sql, input);
      histories.appended([ended.assistant]);
      return ended;
    },

    async endToolRound(input: ToolRoundEnd): Promise<ToolRoundEnded> {
      const ended = await endToolRound(sql, input);
      histories.appended([ended.assistant, ...ended.results]);
      return ended;
    },

    /** One more continuation of a turn left running (crash, restart, failed write); returns the count so far. */
    async countRecovery(id: string): Promise<number> {
      const rows = await sql.all(
        `UPDATE "Turn" SET "recoveries" = "recoveries" + 1, "updatedAt" = $1 WHERE "id" = $2 RETURNING "recoveries"`,
        [new Date(), id],
      );
      if (!rows[0]) throw new Error(`Turn ${id} not found`);
      return intColumn.parse(rows[0].recoveries);
    },

    /** Ask the running turn to stop; the worker holding it polls this flag. */
    async requestCancel(id: string, by: string): Promise<boolean> {
      const changed = await sql.run(
        `UPDATE "Turn" SET "cancelRequested" = $1, "cancelledBy" = $2, "updatedAt" = $3 WHERE "id" = $4 AND "status" IN ${UNFINISHED}`,
        [true, by, new Date(), id],
      );
      return changed === 1;
    },

    async cancelRequest(id: string): Promise<{ requested: boolean; by?: string }> {
      const rows = await sql.all(`SELECT "cancelRequested", "cancelledBy" FROM "Turn" WHERE "id" = $1`, [id]);
      const row = rows[0];
      return row
        ? { requested: boolColumn.parse(row.cancelRequested), by: optionalText.parse(row.cancelledBy) }
        : { requested: false, by: undefined };
    },

    /** The session's unfinished turn (running or awaiting approval), if any. */
    active: (sessionId: string): Promise<TurnRecord | undefined> =>
      one(`SELECT ${COLUMNS} FROM "Turn" WHERE "sessionId" = $1 AND "status" IN ${UNFINISHED} ORDER BY "startedAt" DESC LIMIT 1`, [
        sessionId,
      ]),

    /** Turns left `running` by a process that is gone (its session lease is free or expired). */
    async orphaned(now = new Date()): Promise<TurnRecord[]> {
      const rows = await sql.all(
        `SELECT ${T_COLUMNS} FROM "Turn" t JOIN "Session" s ON s."id" = t."sessionId"
          WHERE t."status" = 'running' AND (s."leaseOwner" IS NULL OR s."leaseUntil" < $1) ORDER BY t."startedAt" LIMIT 100`,
        [now],
      );
      return rows.map(toRecord);
    },

    /** Suspended turns whose approvals are all decided: ready to continue. */
    async decidedButSuspended(): Promise<TurnRecord[]> {
      const rows = await sql.all(
        `SELECT ${T_COLUMNS} FROM "Turn" t WHERE t."status" = 'awaiting_approval'
          AND NOT EXISTS (SELECT 1 FROM "Approval" a WHERE a."turnId" = t."id" AND a."status" = 'pending') LIMIT 100`,
      );
      return rows.map(toRecord);
    },

    async list(options: { sessionId?: string; status?: TurnStatus; limit?: number } = {}): Promise<TurnRecord[]> {
      const where: string[] = [];
      const values: (string | number)[] = [];
      if (options.sessionId) {
        values.push(options.sessionId);
        where.push(`"sessionId" = $${values.length}`);
      }
      if (options.status) {
        values.push(options.status);
        where.push(`"status" = $${values.length}`);
      }
      values.push(options.limit ?? 50);
      const rows = await sql.all(
        `SELECT ${COLUMNS} FROM "Turn" ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY "startedAt" DESC LIMIT $${values.length}`,
        values,
      );
      return rows.map(toRecord);
    },
  };
}
