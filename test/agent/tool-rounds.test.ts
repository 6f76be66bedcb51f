import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { ALICE } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';

afterEach(closeAll);

const calls: string[] = [];

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up',
  parameters: z.object({ word: z.string() }),
  approval: 'never',
  async execute({ word }) {
    calls.push(word);
    return `definition of ${word}`;
  },
}) as AnyTool;

const slow = defineTool({
  name: 'slow',
  description: 'Takes a while',
  parameters: z.object({ ms: z.number(), label: z.string() }),
  approval: 'never',
  async execute({ ms, label }) {
    await new Promise((r) => setTimeout(r, ms));
    return `done ${label}`;
  },
}) as AnyTool;

describe('agent loop: multi-round tool turns', () => {
  it('runs a three-round tool turn and keeps history in order', async () => {
    const h = await createHarness({ tools: [lookup] });
    h.model.enqueue(
      { text: 'Let me check.', toolCalls: [{ name: 'lookup', arguments: { word: 'alpha' } }] },
      { toolCalls: [{ name: 'lookup', arguments: { word: 'beta' } }] },
      { text: 'Alpha and beta are defined.' },
    );
    await h.adapter.say('define alpha and beta');
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn!.status).toBe('done');
    expect(turn!.rounds).toBe(3);
    expect(turn!.usage.totalTokens).toBe(45);

    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    const history = await h.store.messages.history(session.id, session.epoch);
    expect(history.map((m) => `${m.role}:${m.content}`)).toEqual([
      'user:define alpha and beta',
      'assistant:Let me check.',
      'tool:definition of alpha',
      'assistant:',
      'tool:definition of beta',
      'assistant:Alpha and beta are defined.',
    ]);
    expect(history[1]!.toolCalls?.[0]).toMatchObject({ name: 'lookup', arguments: '{"word":"alpha"}' });
    expect(history[2]!.toolCallId).toBe(history[1]!.toolCalls?.[0]?.id);

    // The third request carries the whole exchange, tool results right after their calls.
    const third = h.model.requests[2]!.body.messages;
    expect(third.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(third[3]!.tool_call_id).toBe(third[2]!.tool_calls![0]!.id);
    expect(h.model.requests[0]!.body.tools?.map((t) => t.function.name)).toContain('lookup');

    // The chat shows one answer message whose final text has both rounds' text.
    const answer = h.adapter.lastBotMessage()!;
    expect(answer.text).toBe('Let me check.\n\nAlpha and beta are defined.');
  });

  it('gives calls whose id the model reuses round after round an id of their own within the turn', async () => {
    const h = await createHarness({ tools: [lookup] });
    h.model.enqueue(
      { toolCalls: [{ id: 'call_0', name: 'lookup', arguments: { word: 'one' } }] },
      { toolCalls: [{ id: 'call_0', name: 'lookup', arguments: { word: 'two' } }] },
      { toolCalls: [{ id: 'call_0', name: 'lookup', arguments: { word: 'three' } }] },
      { text: 'Done.' },
    );
    await h.adapter.say('look three words up');
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn!.status).toBe('done');
    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    const history = await h.store.messages.history(session.id, session.epoch);
    const ids = history.flatMap((m) => m.toolCalls ?? []).map((c) => c.id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    // Each result answers its own call.
    const results = history.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m.content]);
    expect(results).toEqual(ids.map((id, i) => [id, `definition of ${['one', 'two', 'three'][i]}`]));
  });

  it('runs the calls of one message concurrently and keeps results in call order', async () => {
    const h = await createHarness({ tools: [slow] });
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'slow', arguments: { ms: 300, label: 'first' } },
          { name: 'slow', arguments: { ms: 10, label: 'second' } },
          { name: 'slow', arguments: { ms: 150, label: 'third' } },
        ],
      },
      { text: 'All three done.' },
    );
    await h.adapter.say('go');
    await settled(h.store, 'memory:dm-u-alice');
    const second = h.model.requests[1]!.body.messages;
    const results = second.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(results).toEqual(['done first', 'done second', 'done third']);
    // Finishing order differs from call order: the activity log shows 'second' ended first.
    const ends = h.adapter.activity.filter((a) => a.phase === 'end');
    expect(ends).toHaveLength(3);
    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    const stored = (await h.store.messages.history(session.id, 0)).filter((m) => m.role === 'tool');
    const assistant = (await h.store.messages.history(session.id, 0)).find((m) => m.toolCalls)!;
    expect(new Set(stored.map((m) => m.toolCallId))).toEqual(new Set(assistant.toolCalls!.map((c) => c.id)));
  });

  it('records the requester in the user message', async () => {
    const h = await createHarness({ tools: [lookup] });
    h.model.enqueue({ text: 'Hello!' });
    await h.adapter.say('hi', { from: ALICE });
    await settled(h.store, 'memory:dm-u-alice');
    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    const [user] = await h.store.messages.history(session.id, 0);
    expect(user).toMatchObject({ role: 'user', senderId: ALICE.id, senderName: 'Alice' });
  });
});
