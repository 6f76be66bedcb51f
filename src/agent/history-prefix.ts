// What is worked out from a conversation's rows is kept with its first row and reused by the next
// read of the same window: rows are only ever appended, and the history cache hands out the same
// row objects, so a read that begins with exactly the rows seen before only adds its newer ones.
import type { MessageRecord } from '../store/types.ts';

/** Whether `history` begins with exactly the row objects of `rows` (the same window, maybe longer). */
export function startsWithRows(history: readonly MessageRecord[], rows: readonly MessageRecord[]): boolean {
  if (rows.length > history.length) return false;
  for (let i = rows.length - 1; i >= 0; i--) if (history[i] !== rows[i]) return false;
  return true;
}

/**
 * A fold over a history's rows, kept with its first row (with a copy of the rows it covers): a
 * history that begins with the rows folded before (the same window, a round or a turn later) folds
 * only its newer rows; any other history is folded from its start.
 */
export class WindowFold<S> {
  readonly #kept = new WeakMap<MessageRecord, { rows: MessageRecord[]; state: S }>();
  readonly #empty: () => S;
  readonly #add: (state: S, row: MessageRecord) => S;

  constructor(empty: () => S, add: (state: S, row: MessageRecord) => S) {
    this.#empty = empty;
    this.#add = add;
  }

  /** The fold of all of `history`; undefined when it has no rows. */
  of(history: readonly MessageRecord[]): S | undefined {
    const first = history[0];
    if (!first) return undefined;
    let known = this.#kept.get(first);
    if (!known || !startsWithRows(history, known.rows)) {
      known = { rows: [], state: this.#empty() };
      this.#kept.set(first, known);
    }
    for (let i = known.rows.length; i < history.length; i++) {
      const row = history[i]!;
      known.rows.push(row);
      known.state = this.#add(known.state, row);
    }
    return known.state;
  }
}

/** The call ids each turn's rows made. */
const callsByTurn = new WindowFold<Map<string, Set<string>>>(
  () => new Map(),
  (ids, row) => {
    if (!row.toolCalls?.length || row.turnId === undefined) return ids;
    let turn = ids.get(row.turnId);
    if (!turn) {
      turn = new Set();
      ids.set(row.turnId, turn);
    }
    for (const call of row.toolCalls) turn.add(call.id);
    return ids;
  },
);

/** The ids of the calls the turn's messages in `history` made. */
export function turnCallIds(history: readonly MessageRecord[], turnId: string): ReadonlySet<string> {
  return callsByTurn.of(history)?.get(turnId) ?? new Set();
}
