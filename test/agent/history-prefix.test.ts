// What is worked out from a window's rows is reused only by reads that begin with those very rows.
import { describe, expect, it } from 'vitest';
import { turnCallIds } from '../../src/agent/history-prefix.ts';
import type { MessageRecord } from '../../src/store/types.ts';

let nextId = 0;
function row(turnId: string | undefined, callIds: string[] = []): MessageRecord {
  return {
    id: ++nextId,
    sessionId: 's',
    epoch: 0,
    ...(turnId ? { turnId } : {}),
    role: callIds.length ? 'assistant' : 'user',
    content: '',
    ...(callIds.length ? { toolCalls: callIds.map((id) => ({ id, name: 'look', arguments: '{}' })) } : {}),
    isError: false,
    createdAt: new Date(0),
  };
}

describe('call ids of a turn', () => {
  it('gathers the turn’s own call ids as its history grows, round after round and turn after turn', () => {
    const history = [row('t1'), row('t1', ['a']), row('t1', ['b'])];
    expect([...turnCallIds(history, 't1')]).toEqual(['a', 'b']);
    history.push(row('t1', ['c']));
    expect([...turnCallIds(history, 't1')]).toEqual(['a', 'b', 'c']);
    // The next turn reads the window again (a new array, the same rows) and adds its own.
    const next = [...history, row('t2'), row('t2', ['a'])];
    expect([...turnCallIds(next, 't2')]).toEqual(['a']);
    expect([...turnCallIds(next, 't1')]).toEqual(['a', 'b', 'c']);
    expect([...turnCallIds(next, 't3')]).toEqual([]);
  });

  it('does not reuse what another read with the same first row gathered', () => {
    const first = row('t1');
    expect([...turnCallIds([first, row('t1', ['x'])], 't1')]).toEqual(['x']);
    // Same first row, another row after it (a different read): gathered again.
    expect([...turnCallIds([first, row('t1', ['y'])], 't1')]).toEqual(['y']);
    // Shorter than what was gathered: only its own rows count.
    expect([...turnCallIds([first], 't1')]).toEqual([]);
  });
});
