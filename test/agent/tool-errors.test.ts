import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';

afterEach(closeAll);

const explode = defineTool({
  name: 'explode',
  description: 'Always throws',
  parameters: z.object({}),
  approval: 'never',
  async execute() {
    throw new Error('the disk is on fire');
  },
}) as AnyTool;

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  approval: 'never',
  async execute({ a, b }) {
    return String(a + b);
  },
}) as AnyTool;

const sleepy = defineTool({
  name: 'sleepy',
  description: 'Never finishes in time',
  parameters: z.object({}),
  approval: 'never',
  timeoutMs: 100,
  async execute(_args, ctx) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return 'too late';
  },
}) as AnyTool;

const verbose = defineTool({
  name: 'verbose',
  description: 'Returns a lot',
  parameters: z.object({}),
  approval: 'never',
  async execute() {
    return 'x'.repeat(5_000);
  },
}) as AnyTool;

function toolResults(body: { messages: { role: string; content: string | null }[] }): string[] {
  return body.messages.filter((m) => m.role === 'tool').map((m) => m.content ?? '');
}

describe('tool failures come back to the model as error results', () => {
  it('a throwing tool, invalid arguments and a timeout are each reported, and the model recovers', async () => {
    const h = await createHarness({ tools: [explode, add, sleepy] });
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'explode', arguments: {} },
          { name: 'add', arguments: { a: 'one', b: 2 } },
          { name: 'add', arguments: '{"a": 1, "b": ' },
          { name: 'sleepy', arguments: {} },
          { name: 'no_such_tool', arguments: {} },
        ],
      },
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
      { text: 'It is 3.' },
    );
    await h.adapter.say('what is one plus two?');
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn!.status).toBe('done');

    const [thrown, wrongType, badJson, timedOut, unknown] = toolResults(h.model.requests[1]!.body);
    expect(thrown).toBe('Error: explode failed: the disk is on fire');
    expect(wrongType).toMatch(/^Invalid arguments for add: .*a/);
    expect(badJson).toMatch(/^Invalid arguments for add: not valid JSON/);
    expect(timedOut).toBe('Error: sleepy timed out after 100 ms.');
    expect(unknown).toMatch(/^Unknown tool "no_such_tool"\. Available tools: .*add/);

    expect(toolResults(h.model.requests[2]!.body).at(-1)).toBe('3');
    expect(h.adapter.lastBotMessage()!.text).toBe('It is 3.');

    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    const errors = (await h.store.messages.history(session.id, 0)).filter((m) => m.role === 'tool' && m.isError);
    expect(errors).toHaveLength(5);
  });

  it('truncates large results with a note', async () => {
    const h = await createHarness({ tools: [verbose], env: { PARLEY_TOOL_RESULT_MAX_CHARS: '1000' } });
    h.model.enqueue({ toolCalls: [{ name: 'verbose', arguments: {} }] }, { text: 'ok' });
    await h.adapter.say('go');
    await settled(h.store, 'memory:dm-u-alice');
    const [result] = toolResults(h.model.requests[1]!.body);
    expect(result!.length).toBe(1000);
    expect(result).toMatch(/\[truncated: showing 1000 of 5000 characters\]$/);
  });
});
