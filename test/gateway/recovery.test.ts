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
      text: request.body.messages.at(-1)!.content?.startsWith('Interrupted: the bot restarted') ? 'The crawl was interrupted; shall I try again?' : 'unexpected',
    }));
    const second = await createHarness({ model, adapters: [channel], tools: [crawl], dbFile: first.dbFile });
    const [resumed] = await settled(second.store, 'memory:dm-u-alice');
    expect(resumed).toMatchObject({ id: turn!.id, status: 'done', rounds: 2 });
    expect(channel.lastBotMessage()!.text).toBe('The crawl was interrupted; shall I try again?');
    await model.close();
  });
});
