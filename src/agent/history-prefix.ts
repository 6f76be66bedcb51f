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

/** Per first row of a history: its rows gathered so far (a copy), and the call ids each turn's rows made. */
const callsByTurn = new WeakMap<MessageRecord, { rows: MessageRecord[]; ids: Map<string, Set<string>> }>();

/**
 * The ids of the calls the turn's messages in `history` made. A history that begins with the rows
 * gathered before (the same window, a round or a turn later) adds only its newer rows.
 */
export function turnCallIds(history: readonly MessageRecord[], turnId: string): ReadonlySet<string> {
  const first = history[0];
  if (!first) return new Set();
  let known = callsByTurn.get(first);
  if (!known || !startsWithRows(history, known.rows)) {
    known = { rows: [], ids: new Map() };
    callsByTurn.set(first, known);
  }
  for (let i = known.rows.length; i < history.length; i++) {
    const row = history[i]!;
    known.rows.push(row);
    if (!row.toolCalls?.length || row.turnId === undefined) continue;
    let ids = known.ids.get(row.turnId);
    if (!ids) {
      ids = new Set();
      known.ids.set(row.turnId, ids);
    }
    for (const call of row.toolCalls) ids.add(call.id);
  }
  return known.ids.get(turnId) ?? new Set();
}
