import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { openStore } from '../../src/store/store.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { MemoryAdapter } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

describe('shutdown and recovery', () => {
  it('a turn interrupted by shutdown is left resumable and continued by the next process', async () => {
    let started = false;
    const crawl = defineTool({
      name: 'crawl',
      description: 'Takes longer than the shutdown grace period',
      parameters: z.object({}),
      approval: 'never',
      async execute(_args, ctx) {
        started = true;
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return 'never returned';
      },
    }) as AnyTool;
    const model = await FakeModelServer.start();
    const channel = new MemoryAdapter();
    const first = await createHarness({ model, adapters: [channel], tools: [crawl] });
    model.enqueue({ text: 'Crawling.', toolCalls: [{ name: 'crawl', arguments: {} }] });
    await channel.say('crawl the site');
    await waitFor(() => started, 'the tool to start');
    await first.stop(); // grace period passes, then the turn is aborted at its checkpoint

    const offline = await openStore(first.config.database);
    const [turn] = await offline.turns.list();
    expect(turn!.status).toBe('running');
    await offline.close();
    expect(channel.lastBotMessage()!.text).toContain('I am restarting; I will continue this answer in a moment.');

    model.enqueue((request) => ({
      text: request.body.messages.at(-1)!.content?.startsWith('Interrupted: the bot restarted')
        ? 'The crawl was interrupted; shall I try again?'
        : 'unexpected',
    }));
    const second = await createHarness({ model, adapters: [channel], tools: [crawl], dbFile: first.dbFile });
    const [resumed] = await settled(second.store, 'memory:dm-u-alice');
    expect(resumed).toMatchObject({ id: turn!.id, status: 'done', rounds: 2 });
    // One answer: the message that said "I am restarting" is continued in place.
    const answer = 'Crawling.\n\nThe crawl was interrupted; shall I try again?';
    await waitFor(() => channel.lastBotMessage()?.text === answer, 'the answer');
    expect(channel.botMessages().map((m) => m.text)).toEqual([answer]);
    await model.close();
  });

  it('an answer interrupted mid-stream by shutdown ends as one complete message, not a truncated one plus a copy', async () => {
    const model = await FakeModelServer.start();
    const channel = new MemoryAdapter();
    const first = await createHarness({ model, adapters: [channel] });
    model.enqueue({ hang: true, text: 'The first half of the answer' });
    await channel.say('explain it');
    await waitFor(() => channel.lastBotMessage()?.text === 'The first half of the answer', 'the first half to stream in');
    await first.stop();
    expect(channel.lastBotMessage()!.text).toContain('I am restarting');

    const full = 'The first half of the answer, and the second half.';
    model.enqueue({ text: full });
    const second = await createHarness({ model, adapters: [channel], dbFile: first.dbFile });
    const [turn] = await settled(second.store, 'memory:dm-u-alice');
    expect(turn).toMatchObject({ status: 'done' });
    await waitFor(() => channel.botMessages().some((m) => m.text === full), 'the full answer');
    expect(channel.botMessages().map((m) => m.text)).toEqual([full]);
    // The cut-off text was not kept as an answer in the history either.
    const history = await second.store.messages.forTurn(turn!.id);
    expect(history.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([full]);
    await model.close();
  });
});
