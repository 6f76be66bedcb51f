// Reads folded into writes on the per-message path, on SQLite and on PostgreSQL: taking and
// releasing a session lease return the session's mailbox state (what the session worker decides
// on); appending tool results says whether messages were queued (the agent's steering look);
// queueing a message finds its session and that session's unfinished turn.
import { describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/store/repos/turn-reads.ts';
import { storeJournal } from '../../src/store-journal.ts';
import { backends, storeFor, testInbound as inbound } from './backends.ts';

const origin = { chat: { channel: 'test', chatId: 'c', chatType: 'direct' as const }, requester: { id: 'u1', displayName: 'Alice' } };

describe.each(backends())('session lease with state on $name', (backend) => {
  const store = storeFor(backend);

  it('takes the lease for one owner at a time and returns the session, its unfinished turn and oldest queued message', async () => {
    const session = await store().sessions.ensure({ key: 'lease-1', channel: 'test', chatId: 'c', chatType: 'direct' });
    await store().inbound.record(inbound('a1', 'first'), session.id, 'queued');
    await store().inbound.record(inbound('a2', 'second'), session.id, 'queued');

    const taken = await Promise.all(['p1', 'p2', 'p3'].map((owner) => store().turnReads.takeLease(session.id, owner, 60_000)));
    expect(taken.filter(Boolean)).toHaveLength(1);
    const index = taken.findIndex(Boolean);
    const owner = ['p1', 'p2', 'p3'][index]!;
    const state = taken[index]!;
    expect(state.session).toMatchObject({ id: session.id, key: 'lease-1', chatType: 'direct', epoch: 0 });
    expect(state.active).toBeUndefined();
    expect(JSON.parse(state.queuedPayload!)).toMatchObject({ eventId: 'a1', text: 'first' });
    // Re-entrant for its holder.
    expect(await store().turnReads.takeLease(session.id, owner, 60_000)).toBeDefined();

    const started = await store().turns.startWithQueued({ sessionId: session.id, epoch: 0, origin });
    expect(started).toBeDefined();
    await store().inbound.record(inbound('a3', 'while it ran'), session.id, 'queued');
    // Released: the running turn and what was queued while it ran; a non-holder releases nothing.
    expect(await store().turnReads.releaseLease(session.id, owner === 'p1' ? 'p2' : 'p1')).toBeUndefined();
    const after = await store().turnReads.releaseLease(session.id, owner);
    expect(after?.active).toEqual({ id: started!.turn.id, status: 'running' });
    expect(JSON.parse(after!.queuedPayload!)).toMatchObject({ eventId: 'a3' });
    expect(await store().sessions.leaseOwners()).toEqual([]);
    expect(await store().turnReads.releaseLease(session.id, owner)).toBeUndefined();
  });

  it("taking the lease reads the session's memory facts too (by key, with their times)", async () => {
    const session = await store().sessions.ensure({ key: 'lease-mem', channel: 'test', chatId: 'cm', chatType: 'direct' });
    expect((await store().turnReads.takeLease(session.id, 'pm', 60_000))?.memory).toEqual([]);
    await store().memory.set(session.id, 'name', 'Ada "the first" \\ 李');
    await store().memory.set(session.id, 'colour', 'teal');
    const taken = await store().turnReads.takeLease(session.id, 'pm', 60_000);
    expect(taken?.memory).toEqual(await store().memory.list(session.id));
    expect(taken?.memory?.map((fact) => fact.key)).toEqual(['colour', 'name']);
    expect(taken?.memory?.[1]?.value).toBe('Ada "the first" \\ 李');
    expect(taken?.memory?.[0]?.updatedAt).toBeInstanceOf(Date);
    expect(Math.abs(taken!.memory![0]!.updatedAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(await store().turnReads.releaseLease(session.id, 'pm')).toBeDefined();
  });

  it('lets another owner take an expired lease, and takes nothing for a session that does not exist', async () => {
    const session = await store().sessions.ensure({ key: 'lease-2', channel: 'test', chatId: 'c2', chatType: 'direct' });
    expect(await store().turnReads.takeLease(session.id, 'short', -1_000)).toBeDefined();
    const next = await store().turnReads.takeLease(session.id, 'next', 60_000);
    expect(next?.session.id).toBe(session.id);
    expect(await store().sessions.leaseOwners()).toEqual(['next']);
    expect(await store().turnReads.takeLease('no-such-session', 'next', 60_000)).toBeUndefined();
  });

  it('appends messages in order and says whether the session had queued messages as they were written', async () => {
    const session = await store().sessions.ensure({ key: 'lease-3', channel: 'test', chatId: 'c3', chatType: 'direct' });
    const other = await store().sessions.ensure({ key: 'lease-4', channel: 'test', chatId: 'c4', chatType: 'direct' });
    const tool = (n: number) => ({
      sessionId: session.id,
      epoch: 0,
      role: 'tool' as const,
      content: `result ${n}`,
      toolCallId: `c${n}`,
      isError: n === 2,
    });
    await store().inbound.record(inbound('b1', 'elsewhere'), other.id, 'queued');
    const first = await store().messages.appendManySeeingQueue([tool(1), tool(2)], session.id);
    expect(first.queued).toBe(false);
    expect(first.records.map((r) => [r.content, r.toolCallId, r.isError])).toEqual([
      ['result 1', 'c1', false],
      ['result 2', 'c2', true],
    ]);
    await store().inbound.record(inbound('b2', 'steer me'), session.id, 'queued');
    const second = await store().messages.appendManySeeingQueue([tool(3)], session.id);
    expect(second.queued).toBe(true);
    expect((await store().messages.history(session.id, 0)).map((m) => m.content)).toEqual(['result 1', 'result 2', 'result 3']);
  });

  it("queues a message for a chat's session in one statement, with its unfinished turn; nothing without a session; once per event", async () => {
    expect(await store().inbound.queueForKey(inbound('q1', 'hello'), 'lease-5')).toBe('no-session');
    expect(await store().inbound.hasQueued('lease-5')).toBe(false);
    const session = await store().sessions.ensure({ key: 'lease-5', channel: 'test', chatId: 'c5', chatType: 'direct' });
    expect(await store().inbound.queueForKey(inbound('q1', 'hello'), 'lease-5')).toEqual({ sessionId: session.id });
    expect(await store().inbound.queueForKey(inbound('q1', 'hello'), 'lease-5')).toBe('duplicate');
    const started = await store().turns.startWithQueued({ sessionId: session.id, epoch: 0, origin });
    expect(await store().inbound.queueForKey(inbound('q2', 'and'), 'lease-5')).toEqual({ sessionId: session.id, activeStatus: 'running' });
    await store().turns.suspend(started!.turn.id);
    expect(await store().inbound.queueForKey(inbound('q3', 'more'), 'lease-5')).toEqual({
      sessionId: session.id,
      activeStatus: 'awaiting_approval',
    });
    expect((await store().inbound.peekQueued(session.id))?.text).toBe('and');
  });
  it("a turn's end releases the session's lease in the same write, and returns what is left to do", async () => {
    const session = await store().sessions.ensure({ key: 'lease-end', channel: 'test', chatId: 'ce', chatType: 'direct' });
    await store().inbound.record(inbound('d1', 'ask'), session.id, 'queued');
    expect(await store().turnReads.takeLease(session.id, 'pe', 60_000)).toBeDefined();
    const { turn } = (await store().turns.startWithQueued({ sessionId: session.id, epoch: 0, origin }))!;
    await store().inbound.record(inbound('d2', 'meanwhile'), session.id, 'queued');
    const answer = (content: string) => ({ sessionId: session.id, epoch: 0, turnId: turn.id, role: 'assistant' as const, content });

    // A round that does not end the turn keeps the lease, even when asked to release it.
    const round = await store().turns.endRound({ turnId: turn.id, usage: undefined, message: answer('thinking'), releaseLeaseOf: 'pe' });
    expect(round.released).toBeUndefined();
    expect(await store().sessions.leaseOwners()).toContain('pe');

    const ended = await store().turns.endRound({
      turnId: turn.id,
      usage: undefined,
      message: answer('done'),
      finish: 'done',
      releaseLeaseOf: 'pe',
    });
    expect(ended.totals.status).toBe('done');
    // The ended turn is not unfinished any more; the message queued while it ran is what is left.
    expect(ended.released?.session.id).toBe(session.id);
    expect(ended.released?.active).toBeUndefined();
    expect(JSON.parse(ended.released!.queuedPayload!)).toMatchObject({ eventId: 'd2' });
    expect(await store().sessions.leaseOwners()).not.toContain('pe');
  });

  it("the journal releases the lease with the turn's end where that saves a statement, and otherwise leaves it to the session's worker", async () => {
    const session = await store().sessions.ensure({ key: 'lease-journal', channel: 'test', chatId: 'cj', chatType: 'direct' });
    await store().inbound.record(inbound('j1', 'ask'), session.id, 'queued');
    expect(await store().turnReads.takeLease(session.id, 'pj', 60_000)).toBeDefined();
    const { turn } = (await store().turns.startWithQueued({ sessionId: session.id, epoch: 0, origin }))!;
    const released: SessionState[] = [];
    const journal = storeJournal(store(), { owner: 'pj', released: (_id, state) => released.push(state) });
    await journal.endRound(
      turn.id,
      undefined,
      { sessionId: session.id, epoch: 0, turnId: turn.id, role: 'assistant', content: 'done' },
      'done',
    );
    expect((await store().turns.get(turn.id))?.status).toBe('done');
    if (backend.name === 'postgresql') {
      // One statement: the round, the turn's end and the release.
      expect(released.map((state) => state.session.id)).toEqual([session.id]);
      expect(await store().sessions.leaseOwners()).not.toContain('pj');
    } else {
      // A statement of its own on SQLite: made by the session's worker once the answer has gone out.
      expect(released).toEqual([]);
      expect(await store().sessions.leaseOwners()).toContain('pj');
      expect(await store().turnReads.releaseLease(session.id, 'pj')).toBeDefined();
    }
  });

  it("a turn's end releases nothing it does not hold, and a gone turn releases nothing", async () => {
    const session = await store().sessions.ensure({ key: 'lease-end-2', channel: 'test', chatId: 'cf', chatType: 'direct' });
    await store().inbound.record(inbound('d3', 'ask'), session.id, 'queued');
    expect(await store().turnReads.takeLease(session.id, 'holder', 60_000)).toBeDefined();
    const { turn } = (await store().turns.startWithQueued({ sessionId: session.id, epoch: 0, origin }))!;
    const message = { sessionId: session.id, epoch: 0, turnId: turn.id, role: 'assistant' as const, content: 'done' };
    const ended = await store().turns.endRound({
      turnId: turn.id,
      usage: undefined,
      message,
      finish: 'done',
      releaseLeaseOf: 'someone else',
    });
    expect(ended.totals.status).toBe('done');
    expect(ended.released).toBeUndefined();
    expect(await store().sessions.leaseOwners()).toContain('holder');
    await expect(
      store().turns.endRound({ turnId: 'no-such-turn', usage: undefined, message, finish: 'done', releaseLeaseOf: 'holder' }),
    ).rejects.toThrow(/not found/);
    expect(await store().sessions.leaseOwners()).toContain('holder');
    expect(await store().turnReads.releaseLease(session.id, 'holder')).toBeDefined();
  });
});
