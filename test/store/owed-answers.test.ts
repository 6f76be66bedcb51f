// The record of an answer (or approval prompts) still owed to a chat, on SQLite and on PostgreSQL:
// written by the write that finishes (suspends) the turn, updated and cleared only by the process
// it names, claimed whole by another, found by the sweep's list.
import { describe, expect, it } from 'vitest';
import { owedRecord } from '../../src/store/repos/owed-answers.ts';
import { backends, storeFor } from './backends.ts';

const origin = { chat: { channel: 'test', chatId: 'c', chatType: 'direct' as const }, requester: { id: 'u1', displayName: 'Alice' } };
const ref = { channel: 'test', chatId: 'c', messageId: '7' };

describe.each(backends())('owed answers on $name', (backend) => {
  const store = storeFor(backend);

  it('the finishing write records the answer as owed, with the streamed messages; only its owner updates or clears it', async () => {
    const session = await store().sessions.ensure({ key: 'owed-1', channel: 'test', chatId: 'c', chatType: 'direct' });
    const turn = await store().turns.create({ sessionId: session.id, epoch: 0, origin });
    await store().turns.saveReplyState(turn.id, { fromRound: 1, refs: [ref] });
    // Running: nothing is owed yet, and nobody can record it.
    expect(await store().owedAnswers.update(turn.id, 'p1', owedRecord('p1', null))).toBe(false);
    await store().turns.finish(turn.id, 'done', undefined, 'p1');
    const mine = owedRecord('p1', { fromRound: 1, refs: [ref] });
    const [owed] = await store().owedAnswers.list();
    expect(owed).toEqual({ turnId: turn.id, kind: 'answer', by: 'p1', reply: { fromRound: 1, refs: [ref] }, raw: mine });

    // Another process neither updates nor clears it; it claims the record as read.
    expect(await store().owedAnswers.settle(turn.id, 'answer', 'p2')).toBe(false);
    const shown = owedRecord('p1', { fromRound: 1, refs: [ref, { ...ref, messageId: '8' }] });
    expect(await store().owedAnswers.update(turn.id, 'p1', shown)).toBe(true);
    expect(await store().owedAnswers.claim(owed!, owedRecord('p2', owed!.reply))).toBe(false);
    const [current] = await store().owedAnswers.list();
    expect(await store().owedAnswers.claim(current!, owedRecord('p2', current!.reply))).toBe(true);
    expect(await store().owedAnswers.settle(turn.id, 'answer', 'p1')).toBe(false);
    expect((await store().owedAnswers.list()).map((o) => [o.turnId, o.by])).toEqual([[turn.id, 'p2']]);
    expect(await store().owedAnswers.settle(turn.id, 'answer', 'p2')).toBe(true);
    expect(await store().owedAnswers.list()).toEqual([]);
  });

  it('a suspension records its prompts as owed; taking the turn up again clears it and starts the next round afresh', async () => {
    const session = await store().sessions.ensure({ key: 'owed-2', channel: 'test', chatId: 'c', chatType: 'direct' });
    const turn = await store().turns.create({ sessionId: session.id, epoch: 0, origin });
    await store().turns.addRound(turn.id, undefined);
    await store().turns.suspend(turn.id, 'p1');
    expect(await store().owedAnswers.list()).toMatchObject([
      { turnId: turn.id, kind: 'prompts', by: 'p1', reply: { fromRound: 1, refs: [] } },
    ]);
    // An answer's settle does not clear prompts.
    expect(await store().owedAnswers.settle(turn.id, 'answer', 'p1')).toBe(false);
    expect(await store().turns.transition(turn.id, 'awaiting_approval', 'running')).toBe(true);
    expect(await store().owedAnswers.list()).toEqual([]);
    await store().turns.finish(turn.id, 'done', undefined, 'p1');
    expect(await store().owedAnswers.list()).toMatchObject([{ kind: 'answer', by: 'p1', reply: { fromRound: 2, refs: [] } }]);
  });
});
