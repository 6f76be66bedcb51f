// The real app (temp SQLite, in-memory chat) against the fake model server streaming the way each
// provider really does (test/fakes/model-profiles.ts names the source of each quirk): a plain
// answer and a round of two parallel tool calls per provider, then the quirks one by one: reasoning
// kept out of the chat, Gemini's thought signatures sent back, empty arguments replayed as "{}", a
// stream cut after its finish chunk, error bodies that are arrays or text, OpenRouter's mid-stream
// error, and OPENAI_STREAM_USAGE=off.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnyTool, defineTool } from '../../src/agent/tools.ts';
import { geminiErrorBody, PROFILE_NAMES, type ProfileName } from '../fakes/model-profiles.ts';
import { FakeModelServer, type RecordedRequest } from '../fakes/model-server.ts';
import { closeAll, createHarness, type Harness, settled } from '../helpers/harness.ts';

const SESSION = 'memory:dm-u-alice';
const REASONING = 'Hmm, the user wants a word looked up; secret chain of thought.';

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await closeAll();
  while (servers.length) await servers.pop()!.close();
});

interface World {
  h: Harness;
  model: FakeModelServer;
  /** Words `lookup` ran for, in the order it ran. */
  lookups: string[];
  pings: number;
}

async function world(profile: ProfileName, env: Record<string, string> = {}): Promise<World> {
  const model = await FakeModelServer.start({ profile });
  servers.push(model);
  const lookups: string[] = [];
  const state = { pings: 0 };
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look a word up',
    parameters: z.object({ word: z.string() }),
    approval: 'never',
    async execute({ word }) {
      lookups.push(word);
      return `definition of ${word}`;
    },
  }) as AnyTool;
  const ping = defineTool({
    name: 'ping',
    description: 'Takes no arguments',
    parameters: z.object({}),
    approval: 'never',
    async execute() {
      state.pings++;
      return 'pong';
    },
  }) as AnyTool;
  const h = await createHarness({ model, tools: [lookup, ping], env });
  return {
    h,
    model,
    lookups,
    get pings() {
      return state.pings;
    },
  };
}

/** Every text the bot has shown in the chat, edits included. */
function shown(h: Harness): string {
  return h.adapter
    .botMessages()
    .flatMap((m) => m.versions)
    .join('\n---\n');
}

function expectNoReasoningShown(h: Harness): void {
  const text = shown(h);
  expect(text).not.toContain('chain of thought');
  expect(text).not.toMatch(/<\/?thi|nk>/);
}

function assistantCalls(request: RecordedRequest) {
  return request.body.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []));
}

async function turnOf(h: Harness) {
  const turns = await settled(h.store, SESSION);
  expect(turns).toHaveLength(1);
  return turns[0]!;
}

describe.each(PROFILE_NAMES)('provider profile %s', (profile) => {
  it('answers a plain message with the text only, usage counted once', async () => {
    const { h, model } = await world(profile);
    model.enqueue({ reasoning: REASONING, text: 'The answer is 42.', usage: { prompt_tokens: 10, completion_tokens: 5 } });
    await h.adapter.say('what is the answer?');
    const turn = await turnOf(h);
    expect(turn.error).toBeUndefined();
    expect(turn.status).toBe('done');
    expect(h.adapter.lastBotMessage()?.text).toBe('The answer is 42.');
    expectNoReasoningShown(h);
    // Every profile reports the usage once (one chunk, the finish chunk, or cumulative in every chunk).
    expect(turn.usage).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    // The stored answer is the answer alone: no reasoning, no <think> block.
    const session = (await h.store.sessions.getByKey(SESSION))!;
    const history = await h.store.messages.history(session.id, session.epoch);
    expect(history.map((m) => `${m.role}:${m.content}`)).toEqual(['user:what is the answer?', 'assistant:The answer is 42.']);
    expect(model.requests[0]!.body.stream_options).toEqual({ include_usage: true });
  });

  it('runs two parallel tool calls once each with their arguments, then delivers the answer', async () => {
    const { h, model, lookups } = await world(profile);
    model.enqueue(
      {
        reasoning: REASONING,
        text: 'Checking.',
        toolCalls: [
          { name: 'lookup', arguments: { word: 'alpha' } },
          { name: 'lookup', arguments: { word: 'beta' } },
        ],
      },
      { text: 'Alpha and beta are defined.' },
    );
    await h.adapter.say('define alpha and beta');
    const turn = await turnOf(h);
    expect(turn.error).toBeUndefined();
    expect(turn.status).toBe('done');
    expect(turn.rounds).toBe(2);
    expect([...lookups].sort()).toEqual(['alpha', 'beta']);

    const final = h.adapter.lastBotMessage()!.text;
    expect(final).toContain('Checking.');
    expect(final).toContain('Alpha and beta are defined.');
    expectNoReasoningShown(h);

    // The second request replays both calls, each answered by its own result.
    expect(model.requests).toHaveLength(2);
    const second = model.requests[1]!;
    const calls = assistantCalls(second);
    expect(calls.map((c) => c.function.name)).toEqual(['lookup', 'lookup']);
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ word: 'alpha' }, { word: 'beta' }]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    const results = second.body.messages.filter((m) => m.role === 'tool');
    expect(results.map((m) => [m.tool_call_id, m.content])).toEqual([
      [calls[0]!.id, 'definition of alpha'],
      [calls[1]!.id, 'definition of beta'],
    ]);
    for (const message of second.body.messages) expect(message.content ?? '').not.toMatch(/<think>|chain of thought/);
  });
});

describe('Gemini thought signatures', () => {
  it('sends each call back with its extra_content.google.thought_signature unchanged', async () => {
    const { h, model, lookups } = await world('gemini');
    model.enqueue(
      {
        toolCalls: [
          { name: 'lookup', arguments: { word: 'alpha' } },
          { name: 'lookup', arguments: { word: 'beta' } },
        ],
      },
      { text: 'Both defined.' },
    );
    await h.adapter.say('define alpha and beta');
    const turn = await turnOf(h);
    expect(model.requests.map((r) => r.answer?.refusal)).toEqual([undefined, undefined]);
    expect(turn.status).toBe('done');
    expect(lookups.sort()).toEqual(['alpha', 'beta']);
    const calls = assistantCalls(model.requests[1]!);
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      const issued = model.signatures.get(call.id);
      expect(issued, `call ${call.id} is one the model made`).toBeDefined();
      expect(call.extra_content).toEqual({ google: { thought_signature: issued!.signature } });
    }
  });

  it('keeps index-less calls sent one per chunk apart, and their signatures', async () => {
    const { h, model, lookups } = await world('gemini');
    model.enqueue(
      {
        splitCalls: true,
        toolCalls: [
          { name: 'lookup', arguments: { word: 'gamma' } },
          { name: 'lookup', arguments: { word: 'delta' } },
        ],
      },
      { text: 'Both defined.' },
    );
    await h.adapter.say('define gamma and delta');
    const turn = await turnOf(h);
    expect(turn.status).toBe('done');
    expect(lookups.sort()).toEqual(['delta', 'gamma']);
    const calls = assistantCalls(model.requests[1]!);
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ word: 'gamma' }, { word: 'delta' }]);
    for (const call of calls) expect(call.extra_content?.google?.thought_signature).toBe(model.signatures.get(call.id)?.signature);
  });

  it('(the fake itself) refuses a round whose call came back without its signature, with an array body', async () => {
    const model = await FakeModelServer.start({ profile: 'gemini' });
    servers.push(model);
    model.enqueue({ toolCalls: [{ name: 'lookup', arguments: { word: 'x' } }] }, { text: 'never sent' });
    const post = (body: unknown) =>
      fetch(`${model.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const first = await (await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] })).text();
    const sent = first
      .split('\n\n')
      .filter((event) => event.startsWith('data: {'))
      .flatMap((event) =>
        JSON.parse(event.slice(6)).choices.flatMap((c: { delta: { tool_calls?: object[] } }) => c.delta.tool_calls ?? []),
      );
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toHaveProperty('index');
    const [issued] = [...model.signatures.values()];
    const history = (extra: object) => [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: issued!.id, type: 'function', function: { name: 'lookup', arguments: '{"word":"x"}' }, ...extra }],
      },
      { role: 'tool', tool_call_id: issued!.id, content: 'definition of x' },
    ];
    const refused = await post({ model: 'm', stream: true, messages: history({}) });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { code: number; message: string; status: string } }[];
    expect(Array.isArray(body)).toBe(true);
    expect(body[0]!.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(body[0]!.error.message).toContain('missing a thought_signature');
    expect(model.pending).toBe(1);
    const accepted = await post({
      model: 'm',
      stream: true,
      messages: history({ extra_content: { google: { thought_signature: issued!.signature } } }),
    });
    expect(accepted.status).toBe(200);
    expect(await accepted.text()).toContain('never sent');
  });
});

describe('quirks', () => {
  it('replays a call made with no arguments ("") as "{}" (vLLM refused "")', async () => {
    const w = await world('vllm');
    const { h, model } = w;
    model.enqueue({ toolCalls: [{ name: 'ping', arguments: '' }] }, { text: 'Pong received.' });
    await h.adapter.say('ping');
    const turn = await turnOf(h);
    expect(turn.status).toBe('done');
    expect(w.pings).toBe(1);
    const [call] = assistantCalls(model.requests[1]!);
    expect(call!.function).toEqual({ name: 'ping', arguments: '{}' });
    expect(model.requests[1]!.body.messages.find((m) => m.role === 'tool')?.content).toBe('pong');
  });

  it('keeps the answer when the connection is cut right after the finish chunk (no usage chunk, no [DONE])', async () => {
    const { h, model } = await world('openai');
    model.enqueue({ text: 'A complete answer, then the proxy hung up.', cutAfterFinish: true });
    await h.adapter.say('hello');
    const turn = await turnOf(h);
    expect(turn.error).toBeUndefined();
    expect(turn.status).toBe('done');
    expect(h.adapter.lastBotMessage()?.text).toBe('A complete answer, then the proxy hung up.');
    expect(model.requests).toHaveLength(1);
  });

  it('runs tool calls once when their stream is cut after the finish chunk', async () => {
    const { h, model, lookups } = await world('vllm');
    model.enqueue({ toolCalls: [{ name: 'lookup', arguments: { word: 'omega' } }], cutAfterFinish: true }, { text: 'Omega is defined.' });
    await h.adapter.say('define omega');
    const turn = await turnOf(h);
    expect(turn.status).toBe('done');
    expect(lookups).toEqual(['omega']);
    expect(model.requests).toHaveLength(2);
    expect(h.adapter.lastBotMessage()?.text).toBe('Omega is defined.');
  });

  it("reports an error body that is a JSON array (Gemini) with the body's message", async () => {
    const { h, model } = await world('gemini');
    model.enqueue({ status: 400, body: geminiErrorBody('Invalid JSON payload received. Unknown name "frobnicate": Cannot find field.') });
    await h.adapter.say('hello');
    const turn = await turnOf(h);
    expect(turn.status).toBe('failed');
    expect(turn.error).toContain('Unknown name "frobnicate"');
    // The user is told something went wrong, without the stack or the raw body.
    expect(h.adapter.lastBotMessage()?.text).not.toContain('frobnicate');
  });

  it("reports an error body that is plain text with the body's text", async () => {
    const { h, model } = await world('openai');
    model.enqueue({ status: 400, text: 'upstream gateway refused the request: model not enabled' });
    await h.adapter.say('hello');
    const turn = await turnOf(h);
    expect(turn.status).toBe('failed');
    expect(turn.error).toContain('model not enabled');
  });

  it('fails the turn with the message of an error sent as a chunk mid-stream (OpenRouter)', async () => {
    const { h, model } = await world('openrouter');
    model.enqueue({ before: 'Let me think about th', midStreamError: { code: 502, message: 'Provider disconnected unexpectedly' } });
    await h.adapter.say('hello');
    const turn = await turnOf(h);
    expect(turn.status).toBe('failed');
    expect(turn.error).toContain('Provider disconnected unexpectedly');
    expect(model.requests).toHaveLength(1);
  });

  it('sends no stream_options with OPENAI_STREAM_USAGE=off, and still answers', async () => {
    const { h, model } = await world('openai', { OPENAI_STREAM_USAGE: 'off' });
    model.enqueue({ text: 'No usage asked for.' });
    await h.adapter.say('hello');
    const turn = await turnOf(h);
    expect(turn.status).toBe('done');
    expect(h.adapter.lastBotMessage()?.text).toBe('No usage asked for.');
    expect(model.requests[0]!.body).not.toHaveProperty('stream_options');
    expect(model.requests[0]!.raw).not.toContain('stream_options');
  });

  it('records usage from DeepSeek cache fields without counting it twice', async () => {
    const { h, model } = await world('deepseek');
    model.enqueue({ reasoning: REASONING, text: 'Cached.', usage: { prompt_tokens: 100, completion_tokens: 7, cached_tokens: 64 } });
    await h.adapter.say('hello');
    const turn = await turnOf(h);
    expect(turn.status).toBe('done');
    expect(turn.usage).toMatchObject({ promptTokens: 100, completionTokens: 7, totalTokens: 107 });
    expectNoReasoningShown(h);
  });
});
