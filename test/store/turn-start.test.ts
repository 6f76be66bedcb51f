// A message for the model in an idle chat, written at once (lease, de-duplication record, turn,
// user message), on SQLite and on PostgreSQL; and nothing written when the chat is not idle.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.ts';
import { backends, storeFor, testInbound as inbound } from './backends.ts';

const origin = { chat: { channel: 'test', chatId: 'c', chatType: 'direct' as const }, requester: { id: 'u1', displayName: 'Alice' } };

const start = (store: Store, key: string, eventId: string, owner = 'p1') =>
  store.turnStart.fromMessage({
    key,
    inbound: inbound(eventId, `text ${eventId}`),
    owner,
    leaseMs: 60_000,
    origin,
    content: `said ${eventId}`,
  });

/** Everything a start could have written for the session (to show that nothing was). */
async function written(store: Store, sessionId: string) {
  const turns = await store.turns.list({ sessionId });
  return {
    owners: await store.sessions.leaseOwners(),
    turns: turns.length,
    messages: await store.messages.count(sessionId),
    queued: await store.inbound.hasQueued(sessionId),
  };
}

describe.each(backends())('starting a turn from a message on $name', (backend) => {
  const store = storeFor(backend);

  it('takes the lease, records the event as handled, and starts the turn with its user message', async () => {
    const session = await store().sessions.ensure({ key: 'start-1', channel: 'test', chatId: 'c', chatType: 'direct' });
    await store().memory.set(session.id, 'name', 'Ada');
    const started = await start(store(), 'start-1', 'e1');
    if (!started || started === 'duplicate') throw new Error(`not started: ${started}`);
    expect(started.state.session).toMatchObject({ id: session.id, key: 'start-1', epoch: 0 });
    expect(started.state.active).toBeUndefined();
    expect(started.state.memory?.map((fact) => [fact.key, fact.value])).toEqual([['name', 'Ada']]);
    expect(started.turn).toMatchObject({ sessionId: session.id, epoch: 0, status: 'running', rounds: 0, origin });
    expect(started.turn).toStrictEqual(await store().turns.get(started.turn.id));
    // Time-ordered (UUID version 7): the turn's indexes grow at one end.
    expect(started.turn.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await store().turns.active(session.id)).toMatchObject({ id: started.turn.id, status: 'running' });
    expect(await store().sessions.leaseOwners()).toEqual(['p1']);
    const [message] = await store().messages.forTurn(started.turn.id);
    expect(message).toMatchObject({ role: 'user', content: 'said e1', senderId: 'u1', senderName: 'Alice', turnId: started.turn.id });
    // The event is recorded once: delivered again, it is a duplicate, and nothing more is written.
    expect(await store().inbound.record(inbound('e1', 'again'), session.id, 'queued')).toBe(false);
    expect(await store().inbound.hasQueued(session.id)).toBe(false);
    expect(await store().turnReads.releaseLease(session.id, 'p1')).toBeDefined();
  });

  it('writes nothing for a chat with an unfinished turn, a queued message, or a lease held by anyone (itself included)', async () => {
    const session = await store().sessions.ensure({ key: 'start-2', channel: 'test', chatId: 'c2', chatType: 'direct' });

    // A lease held by this owner: its worker is on the session already.
    expect(await store().turnReads.takeLease(session.id, 'p1', 60_000)).toBeDefined();
    expect(await start(store(), 'start-2', 'f1')).toBeUndefined();
    // ... or by another process.
    expect(await start(store(), 'start-2', 'f1', 'p2')).toBeUndefined();
    expect(await written(store(), session.id)).toEqual({ owners: ['p1'], turns: 0, messages: 0, queued: false });
    await store().turnReads.releaseLease(session.id, 'p1');

    // A queued message goes first.
    expect(await store().inbound.record(inbound('f0', 'earlier'), session.id, 'queued')).toBe(true);
    expect(await start(store(), 'start-2', 'f1')).toBeUndefined();
    expect(await written(store(), session.id)).toEqual({ owners: [], turns: 0, messages: 0, queued: true });

    // An unfinished turn (here: one awaiting approval) holds the mailbox back.
    const turn = await store().turns.startWithQueued({ sessionId: session.id, epoch: 0, origin });
    await store().turns.suspend(turn!.turn.id);
    expect(await start(store(), 'start-2', 'f1')).toBeUndefined();
    expect(await written(store(), session.id)).toEqual({ owners: [], turns: 1, messages: 1, queued: false });
  });

  it('takes an expired lease, and starts nothing for a chat without a session', async () => {
    const session = await store().sessions.ensure({ key: 'start-3', channel: 'test', chatId: 'c3', chatType: 'direct' });
    expect(await store().turnReads.takeLease(session.id, 'gone', -1_000)).toBeDefined();
    const started = await start(store(), 'start-3', 'g1');
    expect(started).toMatchObject({ state: { session: { id: session.id } } });
    expect(await store().sessions.leaseOwners()).toEqual(['p1']);
    await store().turnReads.releaseLease(session.id, 'p1');
    expect(await start(store(), 'no-such-key', 'g2')).toBeUndefined();
  });

  it('a duplicate event rolls everything back: no lease, no turn, no message', async () => {
    const session = await store().sessions.ensure({ key: 'start-4', channel: 'test', chatId: 'c4', chatType: 'direct' });
    expect(await store().inbound.record(inbound('h1', 'seen'), session.id, 'done')).toBe(true);
    expect(await start(store(), 'start-4', 'h1')).toBe('duplicate');
    expect(await written(store(), session.id)).toEqual({ owners: [], turns: 0, messages: 0, queued: false });
  });

  it('of two starts at once for one idle chat, exactly one starts a turn', async () => {
    const session = await store().sessions.ensure({ key: 'start-5', channel: 'test', chatId: 'c5', chatType: 'direct' });
    const results = await Promise.all([start(store(), 'start-5', 'k1', 'p1'), start(store(), 'start-5', 'k2', 'p2')]);
    expect(results.filter((result) => result && result !== 'duplicate')).toHaveLength(1);
    expect(results.filter((result) => result === undefined)).toHaveLength(1);
    expect((await written(store(), session.id)).turns).toBe(1);
  });
});
