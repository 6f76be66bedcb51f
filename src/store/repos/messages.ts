import type { Db, Tx } from '../database.ts';
import type { MessageRecord, MessageRole, NewMessage, ToolCallRecord } from '../types.ts';

type Row = Awaited<ReturnType<Db['message']['findUniqueOrThrow']>>;

function toRecord(row: Row): MessageRecord {
  return {
    id: row.id,
    sessionId: row.sessionId,
    epoch: row.epoch,
    turnId: row.turnId ?? undefined,
    role: row.role as MessageRole,
    content: row.content,
    toolCalls: row.toolCalls ? (JSON.parse(row.toolCalls) as ToolCallRecord[]) : undefined,
    toolCallId: row.toolCallId ?? undefined,
    toolName: row.toolName ?? undefined,
    isError: row.isError,
    senderId: row.senderId ?? undefined,
    senderName: row.senderName ?? undefined,
    createdAt: row.createdAt,
  };
}

function toData(message: NewMessage) {
  return {
    sessionId: message.sessionId,
    epoch: message.epoch,
    turnId: message.turnId ?? null,
    role: message.role,
    content: message.content,
    toolCalls: message.toolCalls ? JSON.stringify(message.toolCalls) : null,
    toolCallId: message.toolCallId ?? null,
    toolName: message.toolName ?? null,
    isError: message.isError ?? false,
    senderId: message.senderId ?? null,
    senderName: message.senderName ?? null,
  };
}

export async function appendMessage(db: Db | Tx, message: NewMessage): Promise<MessageRecord> {
  return toRecord(await db.message.create({ data: toData(message) }));
}

export function messagesRepo(db: Db) {
  return {
    append: (message: NewMessage) => appendMessage(db, message),

    /** Appends in order, all or nothing. */
    async appendMany(messages: NewMessage[]): Promise<MessageRecord[]> {
      if (messages.length === 0) return [];
      return db.$transaction(async (tx) => {
        const out: MessageRecord[] = [];
        for (const message of messages) out.push(await appendMessage(tx, message));
        return out;
      });
    },

    async get(id: number): Promise<MessageRecord | undefined> {
      const row = await db.message.findUnique({ where: { id } });
      return row ? toRecord(row) : undefined;
    },

    /** The conversation of one epoch, oldest first. */
    async history(sessionId: string, epoch: number): Promise<MessageRecord[]> {
      const rows = await db.message.findMany({ where: { sessionId, epoch }, orderBy: { id: 'asc' } });
      return rows.map(toRecord);
    },

    async forTurn(turnId: string): Promise<MessageRecord[]> {
      const rows = await db.message.findMany({ where: { turnId }, orderBy: { id: 'asc' } });
      return rows.map(toRecord);
    },

    async count(sessionId: string): Promise<number> {
      return db.message.count({ where: { sessionId } });
    },
  };
}
