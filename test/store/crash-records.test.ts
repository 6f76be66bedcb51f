// The two records that make crashes safe: tool-call start records, and the messages of the answer
// being streamed (reply state), which only a running turn may write.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.ts';
import { tempDir, testConfig } from '../helpers/harness.ts';

const open: Store[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function freshTurn() {
  const store = await openStore(testConfig(`file:${join(tempDir(), 'parley.db')}`, undefined).database);
  open.push(store);
  const chat = { channel: 'memory', chatId: 'c1', chatType: 'direct' as const };
  const session = await store.sessions.ensure({ key: 'memory:c1', ...chat });
  const turn = await store.turns.create({ sessionId: session.id, epoch: 0, origin: { chat, requester: { id: 'u1', displayName: 'U' } } });
  return { store, turn };
}

const ref = (messageId: string) => ({ channel: 'memory', chatId: 'c1', messageId });

describe('crash records', () => {
  it('tool starts: one batch per call set, listed per turn, a second start of the same call refused', async () => {
    const { store, turn } = await freshTurn();
    await store.toolStarts.record(turn.id, []);
    expect(await store.toolStarts.started(turn.id)).toEqual(new Set());
    await store.toolStarts.record(turn.id, [
      { id: 'a', name: 'http_request' },
      { id: 'b', name: 'remember' },
    ]);
    expect(await store.toolStarts.started(turn.id)).toEqual(new Set(['a', 'b']));
    await expect(store.toolStarts.record(turn.id, [{ id: 'a', name: 'http_request' }])).rejects.toThrow();
  });

  it('reply state: written only while the turn runs, cleared when it suspends or ends', async () => {
    const { store, turn } = await freshTurn();
    const state = { fromRound: 1, refs: [ref('10'), ref('11')] };
    expect(await store.turns.saveReplyState(turn.id, state)).toBe(true);
    expect((await store.turns.get(turn.id))!.replyState).toEqual(state);

    await store.turns.suspend(turn.id);
    expect((await store.turns.get(turn.id))!.replyState).toBeUndefined();
    // A late write from the renderer of the suspended part changes nothing.
    expect(await store.turns.saveReplyState(turn.id, state)).toBe(false);
    expect((await store.turns.get(turn.id))!.replyState).toBeUndefined();

    expect(await store.turns.transition(turn.id, 'awaiting_approval', 'running')).toBe(true);
    expect(await store.turns.saveReplyState(turn.id, { fromRound: 2, refs: [ref('12')] })).toBe(true);
    await store.turns.finish(turn.id, 'done');
    expect((await store.turns.get(turn.id))!.replyState).toBeUndefined();
    expect(await store.turns.saveReplyState(turn.id, state)).toBe(false);
  });
});
