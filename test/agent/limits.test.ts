import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';

afterEach(closeAll);

let counter = 0;
const tick = defineTool({
  name: 'tick',
  description: 'Counts',
  parameters: z.object({ n: z.number() }),
  approval: 'never',
  async execute({ n }) {
    counter++;
    return `tick ${n}`;
  },
}) as AnyTool;

describe('turn limits', () => {
  it('at the round limit asks once more without tools and tells the user', async () => {
    const h = await createHarness({ tools: [tick], env: { PARLEY_MAX_ROUNDS: '3' } });
    h.model.setFallback((request) =>
      request.body.tool_choice === 'none'
        ? { text: 'Here is what I found so far.' }
        : { toolCalls: [{ name: 'tick', arguments: { n: h.model.requests.length } }] },
    );
    await h.adapter.say('keep going');
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn!.status).toBe('done');
    expect(turn!.rounds).toBe(4);
    expect(h.model.requests).toHaveLength(4);
    const last = h.model.requests[3]!.body;
    expect(last.tool_choice).toBe('none');
    expect(last.messages.at(-1)).toMatchObject({ role: 'system', content: expect.stringMatching(/maximum number of tool rounds/) });
    const answer = h.adapter.lastBotMessage()!.text;
    expect(answer).toContain('Here is what I found so far.');
    expect(answer).toContain('I reached the limit of 3 tool rounds');
  });

  it('warns at the 3rd identical call and stops the turn at the 5th', async () => {
    counter = 0;
    const h = await createHarness({ tools: [tick] });
    h.model.setFallback(() => ({ toolCalls: [{ name: 'tick', arguments: { n: 1 } }] }));
    await h.adapter.say('loop forever');
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn!.status).toBe('failed');
    expect(turn!.error).toMatch(/Loop detected: tick called 5 times/);
    expect(counter).toBe(4); // the 5th identical call is not executed
    const results = h.model.requests.map((r) => r.body.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');
    expect(results[2]).toBe('tick 1'); // after the 2nd call
    expect(results[3]).toMatch(/^\[Warning: you have called tick with these same arguments 3 times/);
    expect(results[4]).toMatch(/^\[Warning: .* 4 times/);
    expect(h.adapter.lastBotMessage()!.text).toMatch(/I stopped because I kept calling tick with the same arguments/);
  });

  it('does not run tool calls from a message cut off by the length limit', async () => {
    counter = 0;
    const h = await createHarness({ tools: [tick] });
    h.model.enqueue(
      { toolCalls: [{ name: 'tick', arguments: '{"n": 12' }], finishReason: 'length' },
      { toolCalls: [{ name: 'tick', arguments: { n: 12 } }] },
      { text: 'done' },
    );
    await h.adapter.say('tick 12');
    await settled(h.store, 'memory:dm-u-alice');
    expect(counter).toBe(1);
    const second = h.model.requests[1]!.body.messages.filter((m) => m.role === 'tool');
    expect(second[0]!.content).toMatch(/^Not run: your message was cut off \(finish_reason "length"\)/);
    const third = h.model.requests[2]!.body.messages.filter((m) => m.role === 'tool');
    expect(third.at(-1)!.content).toBe('tick 12');
  });
});
