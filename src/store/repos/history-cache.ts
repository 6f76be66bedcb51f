// A session's conversation as this process last read it, so the next read fetches only the rows
// added since (messages are append-only and their ids grow). Every read also counts the rows it
// covers: when the count is not what the cached rows and the new ones add up to (a row committed
// out of id order, by another process or a crossed transaction on PostgreSQL), they are read
// whole again. Rows before a read's `fromId` (past the agent's context window) are let go.
// Bounded: the least recently read sessions are dropped first.
import type { MessageRecord } from '../types.ts';

interface Entry {
  epoch: number;
  fromId: number;
  rows: MessageRecord[];
}

/** Sessions kept; a bot with more busy chats reads the others whole, as it did without the cache. */
const DEFAULT_SESSIONS = 512;

export interface HistoryReads {
  /**
   * The epoch's rows with an id above `afterId`, oldest first, and how many rows with an id of at
   * least `fromId` the epoch has in all.
   */
  since(sessionId: string, epoch: number, fromId: number, afterId: number): Promise<{ rows: MessageRecord[]; total: number }>;
}

export class HistoryCache {
  readonly #entries = new Map<string, Entry>();
  readonly #reads: HistoryReads;
  readonly #max: number;

  constructor(reads: HistoryReads, maxSessions = DEFAULT_SESSIONS) {
    this.#reads = reads;
    this.#max = maxSessions;
  }

  /** The rows of one epoch from id `fromId` on, oldest first (a new array: the caller may extend it). */
  async history(sessionId: string, epoch: number, fromId = 0): Promise<MessageRecord[]> {
    const cached = this.#entries.get(sessionId);
    this.#entries.delete(sessionId);
    const usable = cached?.epoch === epoch && cached.fromId <= fromId;
    const known = usable ? cached.rows.filter((row) => row.id >= fromId) : [];
    let { rows, total } = await this.#reads.since(sessionId, epoch, fromId, Math.max(known.at(-1)?.id ?? 0, fromId - 1));
    let all = known.length ? [...known, ...rows] : rows;
    if (all.length !== total) {
      ({ rows, total } = await this.#reads.since(sessionId, epoch, fromId, fromId - 1));
      all = rows;
    }
    this.#entries.set(sessionId, { epoch, fromId, rows: all });
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    return [...all];
  }
}
