// The request body is put together from each message's JSON, kept with the message
// (src/llm/request-body.ts): for any messages and options it must be exactly JSON.stringify of the body, as UTF-8.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messagesJson, requestJson } from '../../src/llm/request-body.ts';
import type { ChatMessage, ToolSpec } from '../../src/llm/types.ts';

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('"messages":[]', '\\"messages\\":[]', '', '</script>\u2028'),
);

const message: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.record({ role: fc.constantFrom('system' as const, 'user' as const), content: text }),
  fc.record({
    role: fc.constant('assistant' as const),
    content: text,
    toolCalls: fc.option(
      fc.array(
        fc.record(
          {
            id: text,
            name: text,
            arguments: text,
            // A field of the server's own, sent back with the call (Gemini's thought signature).
            extra: fc.record({ extra_content: fc.record({ google: fc.record({ thought_signature: text }) }) }),
          },
          { requiredKeys: ['id', 'name', 'arguments'] },
        ),
        { maxLength: 3 },
      ),
      { nil: undefined },
    ),
  }),
  fc.record({ role: fc.constant('tool' as const), toolCallId: text, content: text }),
);

describe('request JSON from kept message pieces', () => {
  it('is JSON.stringify of the whole body, whatever the messages, model name and options', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 12 }),
        text,
        fc.option(fc.double({ noNaN: true }), { nil: undefined }),
        (messages, model, temperature) => {
          // The same message objects twice: the second request reuses what the first kept.
          for (const list of [messages, [...messages, ...messages]]) {
            const { request, body } = bodyOf(list, model, temperature);
            expect(requestJson(body, messagesJson(request)).toString()).toBe(JSON.stringify(body));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stays JSON.stringify of the body over a sequence of requests that grow, shrink or change a message', () => {
    const step = fc.tuple(
      fc.constantFrom('longer', 'any length', 'one message replaced'),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.boolean(),
      text,
    );
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 12 }), fc.array(step, { minLength: 1, maxLength: 6 }), (pool, steps) => {
        // One conversation: the messages after the system prompt are the same objects from request
        // to request, as src/agent/context.ts hands them over; the system prompt is made anew each time.
        const specs: ToolSpec[] = [
          { name: 'look', description: 'd', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
        ];
        steps.forEach(([kind, at, withTools, system], i) => {
          const count = kind === 'longer' ? Math.ceil((pool.length * (i + 1)) / steps.length) : Math.ceil(pool.length * at);
          let conversation = pool.slice(0, Math.max(1, count));
          if (kind === 'one message replaced') {
            const index = Math.floor(at * (conversation.length - 1));
            conversation = conversation.map((m, j) => (j === index ? { ...m, content: `${m.content} (edited)` } : m));
          }
          const list: ChatMessage[] = [{ role: 'system', content: system }, ...conversation];
          const { request, body } = bodyOf(list, 'fake', undefined, withTools ? specs : []);
          expect(requestJson(body, messagesJson(request), withTools ? specs : undefined).toString()).toBe(JSON.stringify(body));
        });
      }),
      { numRuns: 500 },
    );
  });
  it('cuts the kept JSON at the right message after the conversation was shorter, then longer, then changed', () => {
    const m = (content: string): ChatMessage => ({ role: 'user', content });
    const [a, b, c, d, e, g, h] = ['a', 'bb', 'a much longer third message', 'd', 'e', 'g', 'h'].map(m) as ChatMessage[];
    // Each request: a new system prompt, then the conversation's own (kept) messages.
    const sequence = [
      [a, b, c, d],
      [a, b],
      [a, b, e],
      [a, b, e, g],
      [a, b, e, h],
    ];
    for (const conversation of sequence) {
      const list = [m('system prompt'), ...conversation] as ChatMessage[];
      const { request, body } = bodyOf(list, 'fake', undefined, []);
      expect(requestJson(body, messagesJson(request)).toString()).toBe(JSON.stringify(body));
    }
  });

  it('keeps a long conversation whole while its kept bytes grow many times over, with a cut in between', () => {
    // Messages of a few KB with characters of 1 to 4 UTF-8 bytes: the kept bytes outgrow their room again and again.
    const long = (i: number): ChatMessage => ({
      role: i % 2 ? 'assistant' : 'user',
      content: i % 7 ? `${i} é€𝄞 ${'word '.repeat(200 + ((i * 37) % 400))}` : '€'.repeat(3_000),
    });
    const pool = Array.from({ length: 60 }, (_, i) => long(i));
    const lengths = [...Array.from({ length: 40 }, (_, i) => i + 1), 25, 26, ...Array.from({ length: 34 }, (_, i) => i + 27)];
    for (const n of lengths) {
      const list: ChatMessage[] = [{ role: 'system', content: `system ${n}` }, ...pool.slice(0, n)];
      const { request, body } = bodyOf(list, 'fake', undefined, []);
      expect(requestJson(body, messagesJson(request)).toString()).toBe(JSON.stringify(body));
    }
  });
});

/** The body as the client builds it (its `messages` in the API's shape, converted here independently). */
function bodyOf(request: ChatMessage[], model: string, temperature: number | undefined, specs?: ToolSpec[]) {
  const messages = request.map((m) => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    if (m.role !== 'assistant') return { role: m.role, content: m.content };
    const calls = m.toolCalls ?? [];
    return {
      role: 'assistant',
      content: m.content || (calls.length ? null : ''),
      ...(calls.length
        ? {
            tool_calls: calls.map((c) => ({
              ...c.extra,
              id: c.id,
              type: 'function',
              // Blank arguments are sent as an empty object.
              function: { name: c.name, arguments: c.arguments.trim() === '' ? '{}' : c.arguments },
            })),
          }
        : {}),
    };
  });
  return {
    request,
    body: {
      model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      ...(specs === undefined
        ? { tools: [{ type: 'function', function: { name: 'look', description: 'd', parameters: {} } }], tool_choice: 'auto' }
        : specs.length
          ? {
              tools: specs.map((t) => ({
                type: 'function',
                function: { name: t.name, description: t.description, parameters: t.parameters },
              })),
              tool_choice: 'auto',
            }
          : {}),
      ...(temperature !== undefined ? { temperature } : {}),
    },
  };
}
