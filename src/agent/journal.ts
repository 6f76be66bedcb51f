// The agent's only view of storage: what a turn reads (its context) and what it writes, step by
// step, so that a turn can suspend, crash or move to another process and go on from what was
// written. src/app.ts adapts the Store to it; tests use an in-memory one.
import type { MessageRecord, NewMessage, SessionRecord, TurnRecord, TurnStatus, Usage } from '../store/types.ts';

export interface TurnJournal {
  /** The turn and its session as stored now (undefined when either is gone). */
  load(turnId: string): Promise<{ turn: TurnRecord; session: SessionRecord } | undefined>;
  /**
   * The conversation the model sees: the session's messages in this epoch, oldest first, from the
   * message with id `fromId` on (the older ones are past the context window; 0 or none: all).
   */
  history(sessionId: string, epoch: number, fromId?: number, checked?: boolean): Promise<MessageRecord[]>;
  /** The turn's own messages, oldest first. */
  turnMessages(turnId: string): Promise<MessageRecord[]>;
  /** Appends in order, all or nothing; `relaxed` as for appendSeeingQueue. */
  append(messages: NewMessage[], options?: { relaxed?: boolean }): Promise<MessageRecord[]>;
  /**
   * Optional: append, and say in the same write whether messages were queued for the session
   * then. After a tool step with none queued, the agent skips its look for steering messages.
   * `relaxed`: losing this write with the database server would only repeat work (results of calls
   * that may run again), so it need not wait for the disk.
   */
  appendSeeingQueue?(
    messages: NewMessage[],
    sessionId: string,
    options?: { relaxed?: boolean },
  ): Promise<{ records: MessageRecord[]; queued: boolean }>;
  /**
   * One model call's writes, all or nothing: its round and token usage, its assistant message
   * and, with `finish`, the end of the turn (the round answered without tool calls). Without
   * `finish` it may be kept like a relaxed write: the turn writes durably (a start record, an
   * approval) before any of the round's calls has an effect.
   */
  endRound(
    turnId: string,
    usage: Usage | undefined,
    assistant: NewMessage,
    finish?: 'done',
  ): Promise<{ assistant: MessageRecord; ended: { usage: Usage; rounds: number } }>;
  /**
   * Optional: a round whose calls ran before it was written (each may run again, and no one had to
   * decide on it), with their results, in one write that may be kept like a relaxed one (losing it
   * repeats the round); says, as appendSeeingQueue does, whether messages were queued then.
   */
  endToolRound?(
    turnId: string,
    usage: Usage | undefined,
    assistant: NewMessage,
    results: NewMessage[],
  ): Promise<{ assistant: MessageRecord; results: MessageRecord[]; queued: boolean }>;
  /** Committed before the calls run: after a crash, a started call without a result was interrupted. */
  recordToolStarts(turnId: string, calls: { id: string; name: string }[]): Promise<void>;
  /** Ids of the turn's calls that have a start record. */
  toolStarts(turnId: string): Promise<Set<string>>;
  /** The turn waits for decisions (status awaiting_approval). */
  suspend(turnId: string): Promise<void>;
  /** awaiting_approval → running; true for exactly one caller. */
  reopen(turnId: string): Promise<boolean>;
  /**
   * A turn left running is being continued (a crash, a restart, a failed write). Returns how many
   * times that has happened, this time included; the count survives restarts.
   */
  countRecovery(turnId: string): Promise<number>;
  finish(
    turnId: string,
    status: Extract<TurnStatus, 'done' | 'failed' | 'cancelled'>,
    error?: string,
  ): Promise<{ usage: Usage; rounds: number }>;
  /**
   * True when `error` is a failure of the storage itself (unreachable, refusing writes), as
   * opposed to a bug or bad input: the turn is then left running, to be continued from what was
   * written once storage answers.
   */
  isOutage(error: unknown): boolean;
}
