// On SQLite a model round's writes are separate statements in a fixed order (src/store/repos/turns.ts,
// endRound): the assistant message first, then the round's count and the turn's end, then the lease.
// A process stopped between them leaves the message without the rest; the next process must
// continue from exactly that state. The state is made here by stopping a turn mid-answer and
// writing the message as the first statement would have.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { openStore } from '../../src/store/store.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { MemoryAdapter } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

/** A turn left running (its process stopped while the model was answering), and the model server. */
async function interruptedTurn(tools: AnyTool[] = []) {
  const model = await FakeModelServer.start();
  const channel = new MemoryAdapter();
  const first = await createHarness({ model, adapters: [channel], tools });
  model.enqueue({ hang: true, text: 'The first half' });
  await channel.say('explain it');
  await waitFor(() => channel.lastBotMessage()?.text === 'The first half', 'the answer to start streaming');
  await first.stop();
  const store = await openStore(first.config.database);
  const [turn] = await store.turns.list();
  expect(turn).toMatchObject({ status: 'running', rounds: 0 });
  return { model, channel, dbFile: first.dbFile, store, turn: turn! };
}

describe("a model round's writes cut short after the message", () => {
  it('an answer written before its turn was ended is delivered as it is; the model is not asked again', async () => {
    const { model, channel, dbFile, store, turn } = await interruptedTurn();
    await store.messages.appendMany([
      { sessionId: turn.sessionId, epoch: turn.epoch, turnId: turn.id, role: 'assistant', content: 'The whole answer.' },
    ]);
    await store.close();
    const asked = model.requests.length;

    const second = await createHarness({ model, adapters: [channel], dbFile });
    const [ended] = await settled(second.store, 'memory:dm-u-alice');
    expect(ended).toMatchObject({ id: turn.id, status: 'done' });
    await waitFor(() => channel.lastBotMessage()?.text === 'The whole answer.', 'the stored answer');
    expect(channel.botMessages().map((m) => m.text)).toEqual(['The whole answer.']);
    expect(model.requests.length).toBe(asked);
    // The session is free again: the next message is answered.
    model.enqueue({ text: 'Next answer.' });
    await channel.say('and now?');
    await waitFor(() => channel.lastBotMessage()?.text === 'Next answer.', 'the next answer');
    await model.close();
  });

  it('tool calls written before their round was counted are run once, and the turn goes on', async () => {
    let runs = 0;
    const clock = defineTool({
      name: 'clock',
      description: 'The time',
      parameters: z.object({}),
      approval: 'never',
      async execute() {
        runs++;
        return 'noon';
      },
    }) as AnyTool;
    const { model, channel, dbFile, store, turn } = await interruptedTurn([clock]);
    await store.messages.appendMany([
      {
        sessionId: turn.sessionId,
        epoch: turn.epoch,
        turnId: turn.id,
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'clock', arguments: '{}' }],
      },
    ]);
    await store.close();
    model.enqueue((request) => ({ text: request.body.messages.at(-1)?.content === 'noon' ? 'It is noon.' : 'unexpected' }));

    const second = await createHarness({ model, adapters: [channel], dbFile, tools: [clock] });
    const [ended] = await settled(second.store, 'memory:dm-u-alice');
    expect(ended).toMatchObject({ id: turn.id, status: 'done', rounds: 1 });
    await waitFor(() => channel.lastBotMessage()?.text === 'It is noon.', 'the answer');
    expect(runs).toBe(1);
    await model.close();
  });
});
