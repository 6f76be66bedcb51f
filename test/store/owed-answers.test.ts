// The record of an answer still owed to a chat, on SQLite and on PostgreSQL: written only on a
// finished turn, replaced only by whoever holds the record it expects, found by the sweep's list.
import { describe, expect, it } from 'vitest';
import { owedRecord } from '../../src/store/repos/owed-answers.ts';
import { backends, storeFor } from './backends.ts';

const origin = { chat: { channel: 'test', chatId: 'c', chatType: 'direct' as const }, requester: { id: 'u1', displayName: 'Alice' } };
const ref = { channel: 'test', chatId: 'c', messageId: '7' };

describe.each(backends())('owed answers on $name', (backend) => {
  const store = storeFor(backend);

  it('records, finds, hands over and clears an owed answer, only on a finished turn', async () => {
    const session = await store().sessions.ensure({ key: 'owed-1', channel: 'test', chatId: 'c', chatType: 'direct' });
    const turn = await store().turns.create({ sessionId: session.id, epoch: 0, origin });
    const mine = owedRecord('p1', { fromRound: 1, refs: [] });
    // Running: nothing is owed yet.
    expect(await store().owedAnswers.swap(turn.id, null, mine)).toBe(false);
    await store().turns.finish(turn.id, 'done');
    expect(await store().owedAnswers.swap(turn.id, null, mine)).toBe(true);
    expect(await store().owedAnswers.list()).toEqual([{ turnId: turn.id, by: 'p1', reply: { fromRound: 1, refs: [] }, raw: mine }]);

    // Updated with the message sent since; an outdated expectation changes nothing.
    const shown = owedRecord('p1', { fromRound: 1, refs: [ref] });
    expect(await store().owedAnswers.swap(turn.id, mine, shown)).toBe(true);
    expect(await store().owedAnswers.swap(turn.id, mine, null)).toBe(false);
    // Claimed by another process; the first can no longer clear it.
    const theirs = owedRecord('p2', { fromRound: 1, refs: [ref] });
    expect(await store().owedAnswers.swap(turn.id, shown, theirs)).toBe(true);
    expect(await store().owedAnswers.swap(turn.id, shown, null)).toBe(false);
    expect((await store().owedAnswers.list()).map((o) => [o.turnId, o.by])).toEqual([[turn.id, 'p2']]);
    expect(await store().owedAnswers.swap(turn.id, theirs, null)).toBe(true);
    expect(await store().owedAnswers.list()).toEqual([]);
  });
});
