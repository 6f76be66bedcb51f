// Plain records the rest of Parley works with. Only src/store knows the database.
import type { Locale } from '../core/i18n/index.ts';
import type { ChatRef, ChatType, SentRef } from '../core/types.ts';

export interface SessionSpec {
  key: string;
  channel: string;
  chatId: string;
  chatType: ChatType;
  threadId?: string;
  userId?: string;
}

export interface SessionRecord extends SessionSpec {
  id: string;
  epoch: number;
  createdAt: Date;
  updatedAt: Date;
}

export type MessageRole = 'user' | 'assistant' | 'tool' | 'summary';

export interface ToolCallRecord {
  id: string;
  name: string;
  /** The raw JSON text the model produced. */
  arguments: string;
  /** Fields of the call the server sent beyond these (Gemini's thought signature), sent back with the call. */
  extra?: Record<string, unknown>;
}

export interface NewMessage {
  sessionId: string;
  epoch: number;
  turnId?: string;
  role: MessageRole;
  content: string;
  toolCalls?: ToolCallRecord[];
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
  senderId?: string;
  senderName?: string;
}

export interface MessageRecord extends NewMessage {
  id: number;
  isError: boolean;
  createdAt: Date;
}

export type TurnStatus = 'running' | 'awaiting_approval' | 'done' | 'failed' | 'cancelled';

export interface Person {
  id: string;
  displayName: string;
}

/** Where a turn's replies go and who started it; persisted so any process can answer. */
export interface TurnOrigin {
  chat: ChatRef;
  requester: Person;
  replyToMessageId?: string;
  /** The language the bot writes this turn's own texts in (resolved from its message; absent in turns stored before it was kept). */
  locale?: Locale;
  /** The chat's name as the platform sent it with the message (one line, cut to 100 characters). */
  chatTitle?: string;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens the provider served from its prompt cache (part of promptTokens), when it says. */
  cachedTokens?: number;
  /** The configured model (by name) that answered; recorded on the turn. */
  model?: string;
}

export interface TurnRecord {
  id: string;
  sessionId: string;
  epoch: number;
  status: TurnStatus;
  rounds: number;
  usage: Usage;
  error?: string;
  cancelRequested: boolean;
  cancelledBy?: string;
  origin: TurnOrigin;
  /** The chat messages of the answer being streamed when the turn was interrupted, if any. */
  replyState?: ReplyState;
  startedAt: Date;
  endedAt?: Date;
}

/**
 * Where a turn's streamed answer is shown: the messages sent so far (in order) and the round whose
 * text they start with. Written when a message is sent (not per edit), so that a turn continued
 * after a crash edits these messages in place instead of leaving a truncated copy behind.
 */
export interface ReplyState {
  /** 1-based: the turn's first round (= assistant message) whose text these messages show. */
  fromRound: number;
  refs: SentRef[];
  /**
   * Written just before a new message of the answer is sent (on platforms without idempotent
   * sends, a crash before its id is recorded leaves a message nobody can edit): piece `index`,
   * `chars` long. A continuation shows that piece in a new message marked as the continuation.
   */
  unsent?: UnsentPiece;
}

export interface UnsentPiece {
  index: number;
  chars: number;
}

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

export interface NewApproval {
  turnId: string;
  sessionId: string;
  messageId: number;
  toolCallId: string;
  toolName: string;
  arguments: string;
  requester: Person;
  expiresAt: Date;
}

export interface ApprovalRecord {
  id: string;
  token: string;
  code: string;
  turnId: string;
  sessionId: string;
  messageId: number;
  toolCallId: string;
  toolName: string;
  arguments: string;
  argumentsHash: string;
  requester: Person;
  status: ApprovalStatus;
  decidedBy?: Person;
  decidedAt?: Date;
  reason?: string;
  alwaysAllow: boolean;
  promptRef?: SentRef;
  expiresAt: Date;
  createdAt: Date;
}

export interface Decision {
  status: 'approved' | 'denied' | 'expired';
  by: Person;
  reason?: string;
  alwaysAllow?: boolean;
}

export interface AuditEntry {
  approvalId?: string;
  token?: string;
  actor: Person;
  action: string;
  outcome: string;
  toolName?: string;
  argumentsHash?: string;
  detail?: string;
}

export interface AuditRecord extends AuditEntry {
  id: number;
  at: Date;
}

export interface MemoryFactRecord {
  key: string;
  value: string;
  updatedAt: Date;
}
