// The per-message repositories, the same suite on SQLite and on PostgreSQL: dedup, exactly-once
// conditional updates, ordering, all-or-nothing turn starts, Date and JSON round trips.
import { describe, expect, it } from 'vitest';
import type { TurnOrigin } from '../../src/store/types.ts';
import { backends, storeFor, testInbound as inbound } from './backends.ts';

const spec = (key: string) => ({ key, channel: 'test', chatId: key, chatType: 'direct' as const, threadId: 'th-1' });
const origin: TurnOrigin = {
  chat: { channel: 'test', chatId: 'c', chatType: 'direct' },
  requester: { id: 'u1', displayName: 'Alice' },
};

describe.each(backends())('repositories on $name', (backend) => {
  const store = storeFor(backend);

  it('creates a session once per key, with its optional fields and dates', async () => {
    const before = Date.now();
    const [a, b] = await Promise.all([store().sessions.ensure(spec('k1')), store().sessions.ensure(spec('k1'))]);
    expect(a.id).toBe(b.id);
    expect(a).toMatchObject({ key: 'k1', threadId: 'th-1', userId: undefined, epoch: 0 });
    expect(a.createdAt).toBeInstanceOf(Date);
    expect(a.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(await store().sessions.getByKey('k1')).toEqual(a);
    expect(await store().sessions.reset(a.id)).toBe(1);
  });

  it('records a platform event once', async () => {
    const session = await store().sessions.ensure(spec('k2'));
    expect(await store().inbound.record(inbound('e1', 'hi'), session.id, 'queued')).toBe(true);
    expect(await store().inbound.record(inbound('e1', 'hi'), session.id, 'queued')).toBe(false);
    expect(await store().inbound.hasQueued(session.id)).toBe(true);
    expect((await store().inbound.peekQueued(session.id))?.text).toBe('hi');
  });

  it('starts a turn with the queued messages in order, or writes nothing when none is queued', async () => {
    const session = await store().sessions.ensure(spec('k3'));
    expect(await store().turns.startWithQueued({ sessionId: session.id, epoch: 0, origin })).toBeUndefined();
    expect(await store().turns.list({ sessionId: session.id })).toEqual([]);
    for (const [i, text] of ['one', 'two', 'three'].entries()) await store().inbound.record(inbound(`q${i}`, text), session.id, 'queued');
    const started = await store().turns.startWithQueued({ sessionId: session.id, epoch: 0, origin });
    expect(started?.claimed.map((m) => m.text)).toEqual(['one', 'two', 'three']);
    expect(started?.turn).toMatchObject({ status: 'running', rounds: 0, origin, cancelRequested: false });
    const messages = await store().messages.forTurn(started!.turn.id);
    expect(messages.map((m) => [m.role, m.content, m.senderName])).toEqual([
      ['user', 'one', 'Alice'],
      ['user', 'two', 'Alice'],
      ['user', 'three', 'Alice'],
    ]);
    expect(await store().inbound.hasQueued(session.id)).toBe(false);
    expect(await store().turns.active(session.id)).toMatchObject({ id: started!.turn.id });
  });

  it('changes a turn conditionally, for exactly one caller', async () => {
    const session = await store().sessions.ensure(spec('k4'));
    const turn = await store().turns.create({ sessionId: session.id, epoch: 0, origin });
    // The record a start returns is the row as read back.
    expect(turn).toStrictEqual(await store().turns.get(turn.id));
    const state = { fromRound: 1, refs: [{ channel: 'test', chatId: 'c', messageId: 'm1' }] };
    expect(await store().turns.saveReplyState(turn.id, state)).toBe(true);
    expect((await store().turns.get(turn.id))?.replyState).toEqual(state);
    await store().turns.suspend(turn.id);
    expect(await store().turns.saveReplyState(turn.id, state)).toBe(false);
    const reopened = await Promise.all([1, 2, 3].map(() => store().turns.transition(turn.id, 'awaiting_approval', 'running')));
    expect(reopened.filter(Boolean)).toHaveLength(1);
    await store().turns.addRound(turn.id, { promptTokens: 3, completionTokens: 4, totalTokens: 7 });
    await store().turns.addRound(turn.id, undefined);
    expect(await store().turns.requestCancel(turn.id, 'bob')).toBe(true);
    expect(await store().turns.cancelRequest(turn.id)).toEqual({ requested: true, by: 'bob' });
    const ended = await store().turns.finish(turn.id, 'failed', 'boom');
    expect(ended).toMatchObject({
      status: 'failed',
      error: 'boom',
      rounds: 2,
      usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
    });
    expect(ended.endedAt).toBeInstanceOf(Date);
    expect(await store().turns.requestCancel(turn.id, 'bob')).toBe(false);
    expect(await store().turns.countRecovery(turn.id)).toBe(1);
  });

  it('appends messages in order with their tool calls, and records tool starts once', async () => {
    const session = await store().sessions.ensure(spec('k5'));
    const turn = await store().turns.create({ sessionId: session.id, epoch: 0, origin });
    const base = { sessionId: session.id, epoch: 0, turnId: turn.id };
    const calls = [{ id: 'c1', name: 'clock', arguments: '{}' }];
    const appended = await store().messages.appendMany([
      { ...base, role: 'assistant', content: '', toolCalls: calls },
      { ...base, role: 'tool', content: 'noon', toolCallId: 'c1', toolName: 'clock', isError: true },
    ]);
    expect(appended.map((m) => m.id)).toEqual([...appended.map((m) => m.id)].sort((a, b) => a - b));
    expect(await store().messages.history(session.id, 0)).toEqual(appended);
    expect(appended[0]?.toolCalls).toEqual(calls);
    expect(appended[1]).toMatchObject({ isError: true, toolName: 'clock' });
    await store().toolStarts.record(turn.id, [{ id: 'c1', name: 'clock' }]);
    expect(await store().toolStarts.started(turn.id)).toEqual(new Set(['c1']));
    await expect(store().toolStarts.record(turn.id, [{ id: 'c1', name: 'clock' }])).rejects.toThrow();
  });

  it("writes a round's usage, its message and the turn's end together, and nothing for a turn that is gone", async () => {
    const session = await store().sessions.ensure(spec('k7'));
    const turn = await store().turns.create({ sessionId: session.id, epoch: 0, origin });
    const message = { sessionId: session.id, epoch: 0, turnId: turn.id, role: 'assistant' as const, content: 'let me look' };
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
    const first = await store().turns.endRound({
      turnId: turn.id,
      usage,
      message: { ...message, toolCalls: [{ id: 'c1', name: 'clock', arguments: '{}' }] },
    });
    expect(first.totals).toMatchObject({ status: 'running', rounds: 1, usage, endedAt: undefined });
    expect(first.assistant).toMatchObject({
      role: 'assistant',
      content: 'let me look',
      toolCalls: [{ id: 'c1', name: 'clock', arguments: '{}' }],
    });
    const last = await store().turns.endRound({ turnId: turn.id, usage, message: { ...message, content: 'noon' }, finish: 'done' });
    expect(last.totals).toMatchObject({ status: 'done', rounds: 2, usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 } });
    expect(last.totals.endedAt).toBeInstanceOf(Date);
    expect(last.totals).toEqual(
      await store()
        .turns.get(turn.id)
        .then((t) => t && { status: t.status, rounds: t.rounds, usage: t.usage, endedAt: t.endedAt }),
    );
    expect((await store().messages.forTurn(turn.id)).map((m) => m.content)).toEqual(['let me look', 'noon']);

    const gone = { ...message, turnId: 'no-such-turn', content: 'orphan' };
    await expect(store().turns.endRound({ turnId: 'no-such-turn', usage, message: gone })).rejects.toThrow(/not found/);
    expect(await store().messages.forTurn('no-such-turn')).toEqual([]);
  });

  it('writes a tool round that ran before it was written: the round, its message and the results in order, whether messages were queued, and nothing for a turn that is gone', async () => {
    const session = await store().sessions.ensure(spec('k8'));
    const turn = await store().turns.create({ sessionId: session.id, epoch: 0, origin });
    const message = { sessionId: session.id, epoch: 0, turnId: turn.id };
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
    const calls = [
      { id: 'c1', name: 'search', arguments: '{"q":"a"}' },
      { id: 'c2', name: 'search', arguments: '{"q":"b"}' },
    ];
    const round = (n: number) => ({
      turnId: turn.id,
      usage,
      message: { ...message, role: 'assistant' as const, content: `round ${n}`, toolCalls: calls },
      results: calls.map((call) => ({
        ...message,
        role: 'tool' as const,
        content: `${call.id} of ${n}`,
        toolCallId: call.id,
        toolName: call.name,
      })),
    });
    const first = await store().turns.endToolRound(round(1));
    expect(first.totals).toMatchObject({ status: 'running', rounds: 1, usage, endedAt: undefined });
    expect(first.assistant).toMatchObject({ role: 'assistant', content: 'round 1', toolCalls: calls });
    expect(first.results.map((r) => [r.toolCallId, r.content])).toEqual([
      ['c1', 'c1 of 1'],
      ['c2', 'c2 of 1'],
    ]);
    expect(first.assistant.id).toBeLessThan(first.results[0]!.id);
    expect(first.queued).toBe(false);

    await store().inbound.record(inbound('k8-q', 'meanwhile'), session.id, 'queued');
    const second = await store().turns.endToolRound(round(2));
    expect(second).toMatchObject({
      queued: true,
      totals: { rounds: 2, usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 } },
    });
    const stored = await store().messages.forTurn(turn.id);
    expect(stored.map((m) => m.content)).toEqual(['round 1', 'c1 of 1', 'c2 of 1', 'round 2', 'c1 of 2', 'c2 of 2']);
    // The session's history (read through the cache this process keeps) has them in the same order.
    expect((await store().messages.history(session.id, 0)).map((m) => m.content)).toEqual(stored.map((m) => m.content));

    const gone = { ...round(3), turnId: 'no-such-turn' };
    gone.message.turnId = 'no-such-turn';
    for (const result of gone.results) result.turnId = 'no-such-turn';
    await expect(store().turns.endToolRound(gone)).rejects.toThrow(/not found/);
    expect(await store().messages.forTurn('no-such-turn')).toEqual([]);
  });

  it('returns the messages it wrote as reading them back gives them: ids, dates, tool calls, and text the database mends', async () => {
    const session = await store().sessions.ensure(spec('k9'));
    const turn = await store().turns.create({ sessionId: session.id, epoch: 0, origin });
    const base = { sessionId: session.id, epoch: 0, turnId: turn.id };
    // A lone surrogate is stored as U+FFFD by both drivers; JSON keeps it escaped; undefined fields vanish.
    const odd = 'half \ud83d of an emoji, 😀 whole';
    const calls = [{ id: 'c\ud800', name: 'clock', arguments: `{"q":"${'\\ud83d'}"}`, extra: undefined }];
    const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
    const returned = [
      ...(await store().messages.appendMany([{ ...base, role: 'user', content: odd, senderId: 'u\udfff', senderName: odd }])),
      ...(await store().messages.appendManySeeingQueue([{ ...base, role: 'summary', content: '' }], session.id)).records,
      (await store().turns.endRound({ turnId: turn.id, usage, message: { ...base, role: 'assistant', content: odd, toolCalls: calls } }))
        .assistant,
    ];
    const round = await store().turns.endToolRound({
      turnId: turn.id,
      usage,
      message: { ...base, role: 'assistant', content: '', toolCalls: calls },
      results: [{ ...base, role: 'tool', content: odd, toolCallId: 'c\ud800', toolName: 'clo\udc00ck', isError: true }],
    });
    returned.push(round.assistant, ...round.results);
    const last = await store().turns.endRound({
      turnId: turn.id,
      usage,
      message: { ...base, role: 'assistant', content: odd },
      finish: 'done',
    });
    returned.push(last.assistant);
    const read = await store().messages.forTurn(turn.id);
    expect(read).toHaveLength(6);
    expect(read[0]?.content).toBe('half \ufffd of an emoji, 😀 whole');
    expect(read[2]?.toolCalls?.[0]?.id).toBe('c\ud800');
    expect(returned).toStrictEqual(read);
  });

  it('gives a session lease to one owner at a time, until it expires or is released', async () => {
    const session = await store().sessions.ensure(spec('k6'));
    const won = await Promise.all(['p1', 'p2', 'p3'].map((owner) => store().sessions.acquireLease(session.id, owner, 60_000)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const owner = ['p1', 'p2', 'p3'][won.indexOf(true)]!;
    expect(await store().sessions.leaseOwners()).toEqual([owner]);
    expect(await store().sessions.renewLease(session.id, 'nobody', 60_000)).toBe(false);
    expect(await store().sessions.acquireLease(session.id, 'late', -1)).toBe(false);
    await store().sessions.releaseLease(session.id, owner);
    expect(await store().sessions.acquireLease(session.id, 'short', -1_000)).toBe(true);
    // Expired: anyone may take it.
    expect(await store().sessions.acquireLease(session.id, 'next', 60_000)).toBe(true);
    expect(await store().sessions.releaseLeasesOf(['next'])).toBe(1);
    expect(await store().sessions.leaseOwners()).toEqual([]);
  });
});
