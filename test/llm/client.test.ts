import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userMessageOf } from '../../src/core/errors.ts';
import { createLlmClient } from '../../src/llm/client.ts';
import type { StreamDelta } from '../../src/llm/types.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { llmFailure } from '../helpers/llm-failure.ts';

let model: FakeModelServer;
beforeAll(async () => {
  model = await FakeModelServer.start();
});
afterAll(() => model.close());

function client(overrides: Partial<Parameters<typeof createLlmClient>[0]> = {}) {
  return createLlmClient({ baseUrl: model.url, apiKey: 'k', model: 'fake', timeoutMs: 5_000, maxRetries: 2, ...overrides });
}

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('LLM client', () => {
  it('streams text and reasoning deltas and reports usage', async () => {
    model.enqueue({
      reasoning: 'thinking hard',
      text: 'Hello there, friend!',
      chunkSize: 3,
      usage: { prompt_tokens: 7, completion_tokens: 4 },
    });
    const deltas: StreamDelta[] = [];
    const result = await client().complete(ask, { onDelta: (d) => deltas.push(d) });
    expect(result.text).toBe('Hello there, friend!');
    expect(result.reasoning).toBe('thinking hard');
    expect(result.usage).toEqual({ promptTokens: 7, completionTokens: 4, totalTokens: 11 });
    expect(result.finishReason).toBe('stop');
    expect(deltas.filter((d) => d.kind === 'text').length).toBeGreaterThan(3);
    expect(
      deltas
        .filter((d) => d.kind === 'text')
        .map((d) => d.text)
        .join(''),
    ).toBe('Hello there, friend!');
    expect(model.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
  });

  it('sends the request as JSON with its key and content type, every message and tool as given', async () => {
    model.enqueue({ text: 'ok' });
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'quote "this" \\ and ünïcode ✓' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'search', arguments: '{"q":"x"}' }] },
      { role: 'tool' as const, toolCallId: 'c1', content: 'found' },
    ];
    const tools = [{ name: 'search', description: 'Search', parameters: { type: 'object', properties: { q: { type: 'string' } } } }];
    await client().complete({ messages, tools });
    const request = model.requests.at(-1)!;
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers.authorization).toBe('Bearer k');
    expect(request.body).toEqual({
      model: 'fake',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'quote "this" \\ and ünïcode ✓' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'found' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: tools[0] }],
      tool_choice: 'auto',
    });
  });

  it('assembles tool calls from argument fragments split across chunks', async () => {
    model.enqueue({
      toolCalls: [
        { id: 'c1', name: 'search', arguments: { query: 'buttons under a message', limit: 3 } },
        { id: 'c2', name: 'read', arguments: { slug: 'guide/keyboard' } },
      ],
      chunkSize: 4,
    });
    const result = await client().complete({ ...ask, tools: [{ name: 'search', description: 's', parameters: { type: 'object' } }] });
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls).toEqual([
      { id: 'c1', name: 'search', arguments: '{"query":"buttons under a message","limit":3}' },
      { id: 'c2', name: 'read', arguments: '{"slug":"guide/keyboard"}' },
    ]);
  });

  it('retries a 429 after the Retry-After the server asked for', async () => {
    model.enqueue({ status: 429, retryAfter: '1' }, { text: 'finally' });
    const before = model.requests.length;
    const result = await client().complete(ask);
    expect(result.text).toBe('finally');
    const [first, second] = model.requests.slice(before);
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(950);
  });

  it('retries a 500 with backoff, then gives up with a typed error', async () => {
    model.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    const before = model.requests.length;
    const error = await llmFailure(client().complete(ask));
    expect(error.kind).toBe('other');
    expect(error.status).toBe(500);
    expect(model.requests.length - before).toBe(3);
    expect(userMessageOf(error, 'en')).toMatch(/failed to answer/);
  });

  it('maps 401 to an authentication error without retrying', async () => {
    model.enqueue({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } });
    const before = model.requests.length;
    const error = await llmFailure(client().complete(ask));
    expect(error.kind).toBe('authentication');
    expect(model.requests.length - before).toBe(1);
  });

  it('maps a context-length 400 to a context_length error', async () => {
    model.enqueue({
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 8192 tokens.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
    });
    const error = await llmFailure(client().complete(ask));
    expect(error.kind).toBe('context_length');
    expect(userMessageOf(error, 'en')).toMatch(/\/reset/);
  });

  it('reports malformed chunks as a bad_response error', async () => {
    model.enqueue({ malformed: true, before: 'partial' });
    const error = await llmFailure(client().complete(ask));
    expect(error.kind).toBe('bad_response');
  });

  it('times out a stream that goes silent', async () => {
    model.enqueue({ hang: true, text: 'wait for it' });
    const error = await llmFailure(client({ idleTimeoutMs: 300 }).complete(ask));
    expect(error.kind).toBe('timeout');
  });

  it('stops streaming when aborted', async () => {
    model.enqueue({ hang: true, text: 'streaming...' });
    const controller = new AbortController();
    const deltas: string[] = [];
    const call = client().complete(ask, {
      signal: controller.signal,
      onDelta: (d) => {
        deltas.push(d.text);
        controller.abort();
      },
    });
    const error = await llmFailure(call);
    expect(error.kind).toBe('aborted');
    expect(deltas).toEqual(['streaming...']);
  });
});
