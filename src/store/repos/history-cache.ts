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
  /** Shown complete by a turn start's own count (verify): the next read needs no statement. */
  verified?: boolean;
}

/** What a turn start counts in the same statement to show that the cached rows are still all of them. */
export interface CachedWindow {
  fromId: number;
  rows: number;
  lastId: number;
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
  /** Session ids by key, as turn starts told them (see windowOf). */
  readonly #keys = new Map<string, string>();
  readonly #reads: HistoryReads;
  readonly #max: number;

  constructor(reads: HistoryReads, maxSessions = DEFAULT_SESSIONS) {
    this.#reads = reads;
    this.#max = maxSessions;
  }

  /**
   * The rows of one epoch from id `fromId` on, oldest first (a new array: the caller may extend it).
   * `checked`: the caller's turn started with verify's check passing, so the cache alone may do.
   */
  async history(sessionId: string, epoch: number, fromId = 0, checked = false): Promise<MessageRecord[]> {
    const cached = this.#entries.get(sessionId);
    this.#entries.delete(sessionId);
    const usable = cached?.epoch === epoch && cached.fromId <= fromId;
    const known = usable ? rowsFrom(cached.rows, fromId) : [];
    if (usable && checked && cached.verified) {
      // Rows before `fromId` are let go here too, so that the next check counts only the window.
      this.#entries.set(sessionId, { epoch, fromId, rows: known });
      return [...known];
    }
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

  /**
   * Rows this process has just committed for the session (it holds the session's lease, so nobody
   * else writes there meanwhile): kept, so that they need not be read back. Rows that do not
   * follow the cached ones are left to the next read.
   */
  appended(records: readonly MessageRecord[]): void {
    const first = records[0];
    const entry = first && this.#entries.get(first.sessionId);
    if (!entry || entry.epoch !== first.epoch || first.id <= (entry.rows.at(-1)?.id ?? 0)) return;
    entry.rows.push(...records.filter((record) => record.sessionId === first.sessionId && record.epoch === entry.epoch));
  }

  /** The cached window of the session with this key, for a turn start to count in its statement. */
  windowOf(key: string): CachedWindow | undefined {
    const sessionId = this.#keys.get(key);
    const entry = sessionId === undefined ? undefined : this.#entries.get(sessionId);
    if (!entry) return undefined;
    return { fromId: entry.fromId, rows: entry.rows.length, lastId: entry.rows.at(-1)?.id ?? 0 };
  }

  /**
   * A turn start took the session's lease and counted, in the same statement and before adding
   * its own message, the rows from `counted.fromId` on and the newest id: when they match the
   * cached ones, the cache is the whole conversation and `added` follows it. True when it is.
   */
  verify(key: string, sessionId: string, epoch: number, counted: CachedWindow | undefined, added: MessageRecord): boolean {
    if (this.#keys.get(key) !== sessionId) {
      this.#keys.delete(key);
      this.#keys.set(key, sessionId);
      // The longest-known keys go first (their sessions have most likely left the cache).
      if (this.#keys.size > this.#max) this.#keys.delete(this.#keys.keys().next().value!);
    }
    const entry = this.#entries.get(sessionId);
    if (!entry) return false;
    const matches =
      counted !== undefined &&
      entry.epoch === epoch &&
      entry.fromId === counted.fromId &&
      entry.rows.length === counted.rows &&
      (entry.rows.at(-1)?.id ?? 0) === counted.lastId;
    entry.verified = matches;
    if (matches) entry.rows.push(added);
    return matches;
  }
}

/** The rows (in id order) from id `fromId` on: `rows` itself when that is all of them. */
function rowsFrom(rows: MessageRecord[], fromId: number): MessageRecord[] {
  if ((rows[0]?.id ?? fromId) >= fromId) return rows;
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (rows[middle]!.id < fromId) low = middle + 1;
    else high = middle;
  }
  return rows.slice(low);
}
