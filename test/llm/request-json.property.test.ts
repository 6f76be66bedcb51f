// The request body is put together from each message's JSON, kept with the message
// (src/llm/client.ts): for any messages and options it must be exactly JSON.stringify of the body.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestJson } from '../../src/llm/client.ts';
import type { ChatMessage } from '../../src/llm/types.ts';

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
    toolCalls: fc.option(fc.array(fc.record({ id: text, name: text, arguments: text }), { maxLength: 3 }), { nil: undefined }),
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
            expect(requestJson(body, request)).toBe(JSON.stringify(body));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** The body as the client builds it (its `messages` in the API's shape, converted here independently). */
function bodyOf(request: ChatMessage[], model: string, temperature: number | undefined) {
  const messages = request.map((m) => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    if (m.role !== 'assistant') return { role: m.role, content: m.content };
    const calls = m.toolCalls ?? [];
    return {
      role: 'assistant',
      content: m.content || (calls.length ? null : ''),
      ...(calls.length
        ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
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
      tools: [{ type: 'function', function: { name: 'look', description: 'd', parameters: {} } }],
      tool_choice: 'auto',
      ...(temperature !== undefined ? { temperature } : {}),
    },
  };
}
