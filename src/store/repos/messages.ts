import { z } from 'zod';
import { boolColumn, dateColumn, intColumn, optionalText } from '../sql/columns.ts';
import type { SqlDriver, SqlRow, SqlRunner, SqlValue } from '../sql/driver.ts';
import type { MessageRecord, MessageRole, NewMessage, ToolCallRecord } from '../types.ts';
import { HistoryCache } from './history-cache.ts';

const COLUMNS = `"id", "sessionId", "epoch", "turnId", "role", "content", "toolCalls", "toolCallId", "toolName", "isError", "senderId", "senderName", "createdAt"`;

const rowSchema = z.object({
  id: intColumn,
  sessionId: z.string(),
  epoch: intColumn,
  turnId: optionalText,
  role: z.enum(['user', 'assistant', 'tool', 'summary'] as const satisfies readonly MessageRole[]),
  content: z.string(),
  toolCalls: z.string().nullable(),
  toolCallId: optionalText,
  toolName: optionalText,
  isError: boolColumn,
  senderId: optionalText,
  senderName: optionalText,
  createdAt: dateColumn,
});

function toMessageRecord(raw: unknown): MessageRecord {
  const row = rowSchema.parse(raw);
  return { ...row, toolCalls: row.toolCalls ? (JSON.parse(row.toolCalls) as ToolCallRecord[]) : undefined };
}

/** Text as the database keeps it: both drivers write UTF-8, a lone surrogate as U+FFFD. */
const stored = (text: string | undefined) => text?.toWellFormed();

/**
 * The record of a message just inserted, as reading its row back would give it: what was written
 * (`now`: its createdAt), with the id the database gave it. Inserts return only the id.
 */
export function writtenRecord(message: NewMessage, id: number, now: Date): MessageRecord {
  return {
    id,
    sessionId: message.sessionId,
    epoch: message.epoch,
    turnId: message.turnId,
    role: message.role,
    content: stored(message.content)!,
    // Through JSON as the row keeps it (a copy without undefined fields).
    toolCalls: message.toolCalls ? (JSON.parse(JSON.stringify(message.toolCalls)) as ToolCallRecord[]) : undefined,
    toolCallId: stored(message.toolCallId),
    toolName: stored(message.toolName),
    isError: message.isError ?? false,
    senderId: stored(message.senderId),
    senderName: stored(message.senderName),
    createdAt: new Date(now.getTime()),
  };
}

/**
 * The records of `messages` inserted at `now` by one statement whose rows (`rows`, in any order:
 * RETURNING promises none) carry their ids: ids grow in insertion order.
 */
export function writtenRecords(messages: readonly NewMessage[], rows: readonly SqlRow[], now: Date): MessageRecord[] {
  if (rows.length !== messages.length) throw new Error(`${messages.length} messages were inserted, but ${rows.length} rows came back`);
  const ids = rows.map((row) => intColumn.parse(row.id)).sort((a, b) => a - b);
  return messages.map((message, i) => writtenRecord(message, ids[i]!, now));
}

const INSERT = `INSERT INTO "Message" ("sessionId", "epoch", "turnId", "role", "content", "toolCalls", "toolCallId", "toolName", "isError", "senderId", "senderName", "createdAt")`;
const PER_ROW = 12;

function valuesOf(message: NewMessage, now: Date): SqlValue[] {
  return [
    message.sessionId,
    message.epoch,
    message.turnId ?? null,
    message.role,
    message.content,
    message.toolCalls ? JSON.stringify(message.toolCalls) : null,
    message.toolCallId ?? null,
    message.toolName ?? null,
    message.isError ?? false,
    message.senderId ?? null,
    message.senderName ?? null,
    now,
  ];
}

/**
 * One message's INSERT … SELECT … FROM `from` … RETURNING (placeholders $1..$12), for use inside a
 * larger statement: nothing is inserted when `from` has no row.
 */
export function insertOneFrom(from: string, message: NewMessage, now: Date): { text: string; values: SqlValue[] } {
  return { text: `${INSERT} SELECT ${rowPlaceholders(1)} FROM ${from} RETURNING "id"`, values: valuesOf(message, now) };
}

/** PostgreSQL's types of the columns INSERT lists, for a VALUES list whose placeholders nothing else types. */
const PG_TYPES = ['text', 'integer', 'text', 'text', 'text', 'text', 'text', 'text', 'boolean', 'text', 'text', 'timestamp(3)'];

/** One row's placeholders, $`first` to $`first` + 11, typed for PostgreSQL with `typed`. */
function rowPlaceholders(first: number, typed = false): string {
  return PG_TYPES.map((type, col) => `$${first + col}${typed ? `::${type}` : ''}`).join(', ');
}

/** `count` rows of placeholders from $`first` on, typed for PostgreSQL with `typed`. */
function placeholderRows(count: number, first: number, typed: boolean): string[] {
  return Array.from({ length: count }, (_, row) => `(${rowPlaceholders(first + row * PER_ROW, typed)})`);
}

/**
 * The messages' INSERT (in order: ids grow with the VALUES list) of rows only when `from` has a
 * row, RETURNING; its placeholders start at $`first`. For use inside a larger PostgreSQL statement
 * (the VALUES list is typed for it).
 */
export function insertManyFrom(
  from: string,
  messages: readonly NewMessage[],
  now: Date,
  first: number,
): { text: string; values: SqlValue[] } {
  const rows = placeholderRows(messages.length, first, true);
  return {
    text: `${INSERT} SELECT * FROM (VALUES ${rows.join(', ')}) AS v WHERE EXISTS (SELECT 1 FROM ${from}) RETURNING "id"`,
    values: messages.flatMap((message) => valuesOf(message, now)),
  };
}

/**
 * The messages' INSERT of rows only while their turn exists, RETURNING, for SQLite: each row is
 * SELECTed from the turn's row (its id after the row's values), the rows joined by UNION ALL in
 * order (ids grow with them). SQLite takes about 100 µs more for a VALUES list filtered by EXISTS.
 */
export function insertEachWhileTurn(turnId: string, messages: readonly NewMessage[], now: Date): { text: string; values: SqlValue[] } {
  const selects = messages.map((_, row) => {
    const first = row * (PER_ROW + 1) + 1;
    return `SELECT ${rowPlaceholders(first)} FROM "Turn" WHERE "id" = $${first + PER_ROW}`;
  });
  return {
    text: `${INSERT} ${selects.join(' UNION ALL ')} RETURNING "id"`,
    values: messages.flatMap((message) => [...valuesOf(message, now), turnId]),
  };
}

/** The messages' records, and the first row (with `extra`'s column). */
async function insertMany(
  db: SqlRunner,
  messages: readonly NewMessage[],
  extra?: { returning: string; values: SqlValue[] },
): Promise<{ records: MessageRecord[]; first: SqlRow | undefined }> {
  const now = new Date();
  const rows = placeholderRows(messages.length, 1, false);
  const values = messages.flatMap((message) => valuesOf(message, now));
  // The extra expression's placeholders follow the rows'.
  const returning = extra ? `, ${extra.returning.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + values.length}`)}` : '';
  const written = await db.all(`${INSERT} VALUES ${rows.join(', ')} RETURNING "id"${returning}`, [...values, ...(extra?.values ?? [])]);
  return { records: writtenRecords(messages, written, now), first: written[0] };
}

/** Appends in order with one INSERT … RETURNING (one statement: all or nothing). */
export async function appendMessages(db: SqlRunner, messages: readonly NewMessage[]): Promise<MessageRecord[]> {
  if (messages.length === 0) return [];
  return (await insertMany(db, messages)).records;
}

// Ids grow in insertion order; a read's rows come in no promised order.
const inOrder = (rows: SqlRow[]): MessageRecord[] => rows.map(toMessageRecord).sort((a, b) => a.id - b.id);

/** Whether the session ($n) has queued messages, as a column named "queued". */
export const queuedLook = (n: number) =>
  `EXISTS (SELECT 1 FROM "InboundEvent" WHERE "sessionId" = $${n} AND "status" = 'queued') AS "queued"`;
const QUEUED = queuedLook(1);

/**
 * appendMessages, and whether `sessionId` had queued messages as they were written, in the same
 * statement (the agent's look for steering messages after a tool step).
 */
async function appendMessagesSeeingQueue(
  db: SqlRunner,
  messages: readonly NewMessage[],
  sessionId: string,
): Promise<{ records: MessageRecord[]; queued: boolean }> {
  if (messages.length === 0) return { records: [], queued: true };
  const { records, first } = await insertMany(db, messages, { returning: QUEUED, values: [sessionId] });
  return { records, queued: boolColumn.parse(first?.queued) };
}

async function appendMessage(db: SqlRunner, message: NewMessage): Promise<MessageRecord> {
  const [record] = await appendMessages(db, [message]);
  if (!record) throw new Error('the insert returned no row');
  return record;
}

/**
 * Rows of an epoch after `afterId`, and a last row with only the count of its rows from `fromId`
 * on. Not sorted by SQL: with ORDER BY, SQLite picks a plan several times slower for these few rows.
 */
const SINCE = `SELECT NULL AS "total", ${COLUMNS} FROM "Message" WHERE "sessionId" = $1 AND "epoch" = $2 AND "id" > $3
  UNION ALL SELECT COUNT(*), ${COLUMNS.replace(/"\w+"/g, 'NULL')} FROM "Message" WHERE "sessionId" = $4 AND "epoch" = $5 AND "id" >= $6`;

/** The process's cache of sessions' histories, reading through `sql`. */
export function historyCache(sql: SqlDriver): HistoryCache {
  return new HistoryCache({
    async since(sessionId, epoch, fromId, afterId) {
      const rows = await sql.all(SINCE, [sessionId, epoch, afterId, sessionId, epoch, fromId]);
      const count = rows.find((row) => row.total !== null);
      return { total: intColumn.parse(count?.total), rows: inOrder(rows.filter((row) => row !== count)) };
    },
  });
}

/** `histories` keeps what this process appends (it writes a session's rows only under its lease). */
export function messagesRepo(sql: SqlDriver, histories: HistoryCache) {
  const kept = <T extends MessageRecord[] | { records: MessageRecord[] }>(written: T): T => {
    histories.appended(Array.isArray(written) ? written : written.records);
    return written;
  };
  return {
    append: async (message: NewMessage) => kept([await appendMessage(sql, message)])[0]!,

    /** Appends in order, all or nothing; `relaxed`: as a relaxed write (SqlDriver.relaxed). */
    appendMany: async (messages: NewMessage[], options: { relaxed?: boolean } = {}) =>
      kept(await appendMessages(options.relaxed ? sql.relaxed : sql, messages)),

    /**
     * appendMany, and whether the session had queued messages as they were written (one statement).
     * `relaxed`: written as a relaxed write (SqlDriver.relaxed).
     */
    appendManySeeingQueue: async (messages: NewMessage[], sessionId: string, options: { relaxed?: boolean } = {}) =>
      kept(await appendMessagesSeeingQueue(options.relaxed ? sql.relaxed : sql, messages, sessionId)),

    async get(id: number): Promise<MessageRecord | undefined> {
      const rows = await sql.all(`SELECT ${COLUMNS} FROM "Message" WHERE "id" = $1`, [id]);
      return rows[0] ? toMessageRecord(rows[0]) : undefined;
    },

    /**
     * The conversation of one epoch, oldest first, from id `fromId` on (reads only what was added
     * since this process last read it).
     */
    history: (sessionId: string, epoch: number, fromId = 0, checked = false): Promise<MessageRecord[]> =>
      histories.history(sessionId, epoch, fromId, checked),

    async forTurn(turnId: string): Promise<MessageRecord[]> {
      const rows = await sql.all(`SELECT ${COLUMNS} FROM "Message" WHERE "turnId" = $1 ORDER BY "id"`, [turnId]);
      return rows.map(toMessageRecord);
    },

    async count(sessionId: string): Promise<number> {
      const rows = await sql.all(`SELECT COUNT(*) AS "n" FROM "Message" WHERE "sessionId" = $1`, [sessionId]);
      return intColumn.parse(rows[0]?.n);
    },
  };
}
