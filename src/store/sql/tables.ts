// Every table's columns as the store's SQL driver returns them: one definition per table, written
// in the schema's own terms (prisma/schema.prisma, the source of truth) and checked against it by
// test/store/tables.test.ts, so a column added to the schema and not here fails a test. A
// repository parses its rows with `TABLES.<table>` (or a `.pick` of it): SQLite's text dates and
// 0/1 booleans and PostgreSQL's Dates, booleans and text counts come out alike.
import { z } from 'zod';
import { boolColumn, dateColumn, intColumn } from './columns.ts';

const text = z.string();
const optionalText = text.nullable();
const int = intColumn;
const optionalInt = int.nullable();
const bool = boolColumn;
const date = dateColumn;
const optionalDate = date.nullable();

/** Each column schema by the Prisma type it stands for (`?`: optional), for the test that compares them. */
export const COLUMN_TYPES = new Map<z.ZodType, string>([
  [text, 'String'],
  [optionalText, 'String?'],
  [int, 'Int'],
  [optionalInt, 'Int?'],
  [bool, 'Boolean'],
  [date, 'DateTime'],
  [optionalDate, 'DateTime?'],
]);

export const TABLES = {
  Session: z.object({
    id: text,
    key: text,
    channel: text,
    chatId: text,
    threadId: optionalText,
    userId: optionalText,
    chatType: text,
    epoch: int,
    leaseOwner: optionalText,
    leaseUntil: optionalDate,
    createdAt: date,
    updatedAt: date,
  }),
  Message: z.object({
    id: int,
    sessionId: text,
    epoch: int,
    turnId: optionalText,
    role: text,
    content: text,
    toolCalls: optionalText,
    toolCallId: optionalText,
    toolName: optionalText,
    isError: bool,
    senderId: optionalText,
    senderName: optionalText,
    createdAt: date,
  }),
  Turn: z.object({
    id: text,
    sessionId: text,
    epoch: int,
    status: text,
    rounds: int,
    promptTokens: int,
    completionTokens: int,
    totalTokens: int,
    cachedTokens: int,
    error: optionalText,
    cancelRequested: bool,
    cancelledBy: optionalText,
    origin: text,
    replyState: optionalText,
    startedAt: date,
    updatedAt: date,
    endedAt: optionalDate,
    recoveries: int,
    model: optionalText,
  }),
  ChatModel: z.object({ channel: text, chatId: text, model: text, setBy: text, updatedAt: date }),
  RateCount: z.object({ key: text, windowStart: date, count: int }),
  ToolCallStart: z.object({ id: int, turnId: text, toolCallId: text, toolName: text, startedAt: date }),
  MemoryFact: z.object({ id: int, sessionId: text, key: text, value: text, updatedAt: date }),
  InboundEvent: z.object({
    id: int,
    channel: text,
    eventId: text,
    sessionId: optionalText,
    status: text,
    payload: optionalText,
    turnId: optionalText,
    receivedAt: date,
  }),
  Approval: z.object({
    id: text,
    token: text,
    code: text,
    turnId: text,
    sessionId: text,
    messageId: int,
    toolCallId: text,
    toolName: text,
    arguments: text,
    argumentsHash: text,
    requesterId: text,
    requesterName: text,
    status: text,
    decidedById: optionalText,
    decidedByName: optionalText,
    decidedAt: optionalDate,
    reason: optionalText,
    alwaysAllow: bool,
    promptRef: optionalText,
    expiresAt: date,
    createdAt: date,
  }),
  ApprovalAudit: z.object({
    id: int,
    approvalId: optionalText,
    token: optionalText,
    actorId: text,
    actorName: text,
    action: text,
    outcome: text,
    toolName: optionalText,
    argumentsHash: optionalText,
    detail: optionalText,
    at: date,
  }),
  ToolGrant: z.object({ id: int, sessionId: text, toolName: text, grantedBy: text, createdAt: date }),
  KnowledgePage: z.object({
    id: text,
    slug: text,
    title: text,
    summary: text,
    content: text,
    tags: text,
    references: text,
    source: text,
    revision: int,
    hash: text,
    createdAt: date,
    updatedAt: date,
  }),
  KnowledgeRevision: z.object({
    id: int,
    pageId: text,
    revision: int,
    title: text,
    summary: text,
    content: text,
    tags: text,
    references: text,
    source: text,
    author: optionalText,
    note: optionalText,
    hash: text,
    createdAt: date,
  }),
  ParleyProcess: z.object({ owner: text, host: text, pid: int, startedAt: date, heartbeatAt: date, channels: text }),
  ReceiverLease: z.object({
    receiver: text,
    owner: optionalText,
    token: int,
    leaseUntil: optionalDate,
    state: optionalText,
    updatedAt: date,
  }),
};

type TableName = keyof typeof TABLES;
/** A row of `T` as a repository works with it (dates as Date, booleans as boolean, NULL as null). */
export type Row<T extends TableName> = z.output<(typeof TABLES)[T]>;

/** `"a", "b", …`: the quoted names of the columns, for a SELECT or an INSERT. */
export const columnList = (columns: readonly string[]): string => columns.map((column) => `"${column}"`).join(', ');
