import { z } from 'zod';
import { boolColumn, dateColumn, intColumn, optionalText } from '../sql/columns.ts';
import type { SqlDriver, SqlRunner } from '../sql/driver.ts';
import type { MessageRecord, NewMessage, ToolCallRecord } from '../types.ts';

const COLUMNS = `"id", "sessionId", "epoch", "turnId", "role", "content", "toolCalls", "toolCallId", "toolName", "isError", "senderId", "senderName", "createdAt"`;

const rowSchema = z.object({
  id: intColumn,
  sessionId: z.string(),
  epoch: intColumn,
  turnId: optionalText,
  role: z.enum(['user', 'assistant', 'tool', 'summary']),
  content: z.string(),
  toolCalls: z.string().nullable(),
  toolCallId: optionalText,
  toolName: optionalText,
  isError: boolColumn,
  senderId: optionalText,
  senderName: optionalText,
  createdAt: dateColumn,
});

function toRecord(raw: unknown): MessageRecord {
  const row = rowSchema.parse(raw);
  return { ...row, toolCalls: row.toolCalls ? (JSON.parse(row.toolCalls) as ToolCallRecord[]) : undefined };
}

const INSERT = `INSERT INTO "Message" ("sessionId", "epoch", "turnId", "role", "content", "toolCalls", "toolCallId", "toolName", "isError", "senderId", "senderName", "createdAt")
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING ${COLUMNS}`;

/** One INSERT … RETURNING; inside a transaction when `db` is one. */
export async function appendMessage(db: SqlRunner, message: NewMessage): Promise<MessageRecord> {
  const rows = await db.all(INSERT, [
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
    new Date(),
  ]);
  return toRecord(rows[0]);
}

export async function appendMessages(db: SqlRunner, messages: readonly NewMessage[]): Promise<MessageRecord[]> {
  const out: MessageRecord[] = [];
  for (const message of messages) out.push(await appendMessage(db, message));
  return out;
}

export function messagesRepo(sql: SqlDriver) {
  return {
    append: (message: NewMessage) => appendMessage(sql, message),

    /** Appends in order, all or nothing. */
    async appendMany(messages: NewMessage[]): Promise<MessageRecord[]> {
      if (messages.length === 0) return [];
      if (messages.length === 1) return [await appendMessage(sql, messages[0]!)];
      return sql.transaction((tx) => appendMessages(tx, messages));
    },

    async get(id: number): Promise<MessageRecord | undefined> {
      const rows = await sql.all(`SELECT ${COLUMNS} FROM "Message" WHERE "id" = $1`, [id]);
      return rows[0] ? toRecord(rows[0]) : undefined;
    },

    /** The conversation of one epoch, oldest first. */
    async history(sessionId: string, epoch: number): Promise<MessageRecord[]> {
      const rows = await sql.all(`SELECT ${COLUMNS} FROM "Message" WHERE "sessionId" = $1 AND "epoch" = $2 ORDER BY "id"`, [
        sessionId,
        epoch,
      ]);
      return rows.map(toRecord);
    },

    async forTurn(turnId: string): Promise<MessageRecord[]> {
      const rows = await sql.all(`SELECT ${COLUMNS} FROM "Message" WHERE "turnId" = $1 ORDER BY "id"`, [turnId]);
      return rows.map(toRecord);
    },

    async count(sessionId: string): Promise<number> {
      const rows = await sql.all(`SELECT COUNT(*) AS "n" FROM "Message" WHERE "sessionId" = $1`, [sessionId]);
      return intColumn.parse(rows[0]?.n);
    },
  };
}
