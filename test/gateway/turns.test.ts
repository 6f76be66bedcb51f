import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { ALICE, BOB } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('gateway: stop, steering, dedup, concurrency', () => {
  it('/stop during a stream cancels the turn and says so', async () => {
    const h = await createHarness();
    h.model.enqueue({ hang: true, text: 'Once upon a time' });
    await h.adapter.say('tell me a long story');
    await waitFor(() => h.adapter.lastBotMessage()?.text.includes('Once upon a time'), 'streamed text');
    await h.adapter.say('/stop');
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn!.status).toBe('cancelled');
    const answer = h.adapter.botMessages().find((m) => m.text.startsWith('Once upon a time'))!;
    expect(answer.text).toBe('Once upon a time\n\n_Stopped (by Alice)._');
    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    const history = await h.store.messages.history(session.id, 0);
    expect(history.at(-1)).toMatchObject({ role: 'assistant', content: 'Once upon a time [stopped]' });
  });

  it('/stop during a tool aborts the tool and ends the turn', async () => {
    let toolSawAbort = false;
    const started = deferred();
    const wait = defineTool({
      name: 'wait_forever',
      description: 'Waits until aborted',
      parameters: z.object({}),
      approval: 'never',
      async execute(_args, ctx) {
        started.resolve();
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        toolSawAbort = true;
        return 'aborted';
      },
    }) as AnyTool;
    const h = await createHarness({ tools: [wait] });
    h.model.enqueue({ toolCalls: [{ name: 'wait_forever', arguments: {} }] });
    await h.adapter.say('wait');
    await started.promise;
    await h.adapter.say('/stop');
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn!.status).toBe('cancelled');
    await waitFor(() => toolSawAbort, 'the tool to see the abort');
    expect(h.model.requests).toHaveLength(1);
    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    const result = (await h.store.messages.history(session.id, 0)).find((m) => m.role === 'tool')!;
    expect(result.content).toMatch(/^Cancelled: the turn was stopped/);
    expect(h.adapter.lastBotMessage()!.text).toMatch(/Stopped \(by Alice\)/);
  });

  it('injects a message that arrives mid-turn as steering after the current tool batch', async () => {
    const release = deferred();
    const started = deferred();
    const slow = defineTool({
      name: 'slow_search',
      description: 'Slow',
      parameters: z.object({ q: z.string() }),
      approval: 'never',
      async execute({ q }) {
        started.resolve();
        await release.promise;
        return `results for ${q}`;
      },
    }) as AnyTool;
    const h = await createHarness({ tools: [slow] });
    h.model.enqueue({ toolCalls: [{ name: 'slow_search', arguments: { q: 'cats' } }] }, { text: 'Dogs it is.' });
    await h.adapter.say('search cats');
    await started.promise;
    await h.adapter.say('actually, dogs please');
    release.resolve();
    const turns = await settled(h.store, 'memory:dm-u-alice');
    expect(turns).toHaveLength(1);
    const second = h.model.requests[1]!.body.messages;
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(second.at(-1)!.content).toBe('actually, dogs please');
    expect(h.model.requests).toHaveLength(2);
  });

  it('processes a repeated inbound event once', async () => {
    const h = await createHarness();
    h.model.setFallback(() => ({ text: 'hello' }));
    const inbound = await h.adapter.say('hi', { eventId: 'update-42' });
    await h.adapter.deliver(inbound);
    await h.adapter.deliver({ ...inbound, receivedAt: new Date() });
    await settled(h.store, 'memory:dm-u-alice');
    expect(h.model.requests).toHaveLength(1);
    expect(h.adapter.botMessages()).toHaveLength(1);
  });

  it('runs two sessions concurrently while serialising one session', async () => {
    const gate = deferred();
    const h = await createHarness();
    const bobUsers: string[] = [];
    h.model.setFallback((request) => {
      const last = request.body.messages.at(-1)!.content ?? '';
      if (last.startsWith('bob')) bobUsers.push(last);
      return { text: `answer to ${last}`, hold: gate.promise.then(() => undefined) };
    });
    await h.adapter.say('alice one', { from: ALICE });
    await h.adapter.say('bob one', { from: BOB });
    // Both sessions reach the model at once while their first answers are held...
    await waitFor(() => h.model.requests.length === 2, 'two concurrent requests');
    // ...but Bob's next message waits for his running turn.
    await h.adapter.say('bob two', { from: BOB });
    await new Promise((r) => setTimeout(r, 150));
    expect(h.model.requests).toHaveLength(2);
    gate.resolve();
    await settled(h.store, 'memory:dm-u-alice');
    const bobTurns = await settled(h.store, 'memory:dm-u-bob');
    // Bob's second message was handled after his first turn, in order, as its own turn.
    expect(bobTurns).toHaveLength(2);
    expect(bobUsers).toEqual(['bob one', 'bob two']);
    const bobSecond = h.model.requests.find((r) => r.body.messages.at(-1)!.content === 'bob two')!;
    expect(bobSecond.body.messages.map((m) => m.content).filter((c) => c?.startsWith('bob') || c?.startsWith('answer'))).toEqual([
      'bob one',
      'answer to bob one',
      'bob two',
    ]);
  });

  it('ignores group messages that do not address the bot, answers those that do', async () => {
    const h = await createHarness();
    h.model.setFallback(() => ({ text: 'yes?' }));
    await h.adapter.say('just chatting', { chatType: 'group' });
    await h.adapter.say('hey bot', { chatType: 'group', mention: true });
    await settled(h.store, 'memory:group-1');
    expect(h.model.requests).toHaveLength(1);
    const reply = h.adapter.lastBotMessage('group-1')!;
    expect(reply.replyToMessageId).toBeDefined();
    expect(h.adapter.messages.get(reply.replyToMessageId!)!.text).toBe('hey bot');
    // A reply to the bot's message counts as addressing it.
    await h.adapter.say('and again', { chatType: 'group', replyTo: reply.id });
    await waitFor(() => h.model.requests.length === 2, 'second request');
    // Group history carries who said what.
    expect(h.model.requests[1]!.body.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      '[Alice] hey bot',
      '[Alice] and again',
    ]);
  });

  it('/reset starts a fresh conversation and keeps the old one in the database', async () => {
    const h = await createHarness();
    h.model.setFallback(() => ({ text: 'noted' }));
    await h.adapter.say('my name is Alice');
    await settled(h.store, 'memory:dm-u-alice');
    await h.adapter.say('/reset');
    await h.adapter.say('who am I?');
    await settled(h.store, 'memory:dm-u-alice');
    const last = h.model.requests.at(-1)!.body.messages;
    expect(last.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['who am I?']);
    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    expect(session.epoch).toBe(1);
    expect((await h.store.messages.history(session.id, 0)).map((m) => m.content)).toEqual(['my name is Alice', 'noted']);
  });
});
