// Tool calls put together from deltas shaped as real servers send them (PLATFORM-FACTS,
// "OpenAI-compatible models", and the bug reports named there).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ToolCallFragment, ToolCallAssembly } from '../../src/llm/tool-call-assembly.ts';

function assemble(...chunks: ToolCallFragment[][]) {
  const assembly = new ToolCallAssembly();
  for (const chunk of chunks) for (const fragment of chunk) assembly.add(fragment);
  return assembly.calls();
}

describe('tool calls from stream fragments', () => {
  it('OpenAI: keyed by index, id and name in the first fragment, arguments in pieces', () => {
    expect(
      assemble(
        [{ index: 0, id: 'call_a', type: 'function', function: { name: 'look', arguments: '' } }],
        [{ index: 0, function: { arguments: '{"q":' } }],
        [{ index: 1, id: 'call_b', type: 'function', function: { name: 'note', arguments: '' } }],
        [{ index: 0, function: { arguments: '"x"}' } }],
        [{ index: 1, function: { arguments: '{}' } }],
      ),
    ).toEqual([
      { id: 'call_a', name: 'look', arguments: '{"q":"x"}' },
      { id: 'call_b', name: 'note', arguments: '{}' },
    ]);
  });

  it('Gemini: no index, each call whole, two in one chunk, thought signatures kept with their call', () => {
    const signature = (s: string) => ({ extra_content: { google: { thought_signature: s } } });
    expect(
      assemble([
        { id: 'function-call-1', type: 'function', function: { name: 'probe__note', arguments: '{"text":"a"}' }, ...signature('c2lnMQ==') },
        { id: 'function-call-2', type: 'function', function: { name: 'probe__note', arguments: '{"text":"b"}' }, ...signature('c2lnMg==') },
      ]),
    ).toEqual([
      { id: 'function-call-1', name: 'probe__note', arguments: '{"text":"a"}', extra: signature('c2lnMQ==') },
      { id: 'function-call-2', name: 'probe__note', arguments: '{"text":"b"}', extra: signature('c2lnMg==') },
    ]);
  });

  it('a proxy that puts index 0 on every call: a new id starts a new call', () => {
    expect(
      assemble(
        [{ index: 0, id: 'a', function: { name: 'look', arguments: '{"q":1}' } }],
        [{ index: 0, id: 'b', function: { name: 'look', arguments: '{"q":2}' } }],
      ),
    ).toEqual([
      { id: 'a', name: 'look', arguments: '{"q":1}' },
      { id: 'b', name: 'look', arguments: '{"q":2}' },
    ]);
  });

  it('MiniMax on NIM, Fireworks, Kimi: id, type and name repeated in every fragment are set, not appended', () => {
    const piece = (args: string) => ({ index: 0, id: 'call_1', type: 'function', function: { name: 'probe__note', arguments: args } });
    expect(assemble([piece('{"te')], [piece('xt":')], [piece('"hi"}')])).toEqual([
      { id: 'call_1', name: 'probe__note', arguments: '{"text":"hi"}' },
    ]);
    // The same without index.
    const bare = (args: string) => ({ id: 'call_1', type: 'function', function: { name: 'probe__note', arguments: args } });
    expect(assemble([bare('{"a"')], [bare(':1}')])).toEqual([{ id: 'call_1', name: 'probe__note', arguments: '{"a":1}' }]);
  });

  it('fragments without index or id continue the last call; one naming another tool starts a new one', () => {
    expect(
      assemble(
        [{ function: { name: 'look', arguments: '{"q"' } }],
        [{ function: { arguments: ':1}' } }],
        [{ function: { name: 'note', arguments: '{}' } }],
      ),
    ).toEqual([
      { id: 'call_0', name: 'look', arguments: '{"q":1}' },
      { id: 'call_1', name: 'note', arguments: '{}' },
    ]);
  });

  it('null fields are absent fields', () => {
    expect(
      assemble(
        [{ index: 0, id: 'x', type: 'function', function: { name: 'look', arguments: null }, extra_content: null }],
        [{ index: 0, id: null, function: { name: null, arguments: '{}' } }],
      ),
    ).toEqual([{ id: 'x', name: 'look', arguments: '{}' }]);
  });

  it('any split of OpenAI-shaped argument text into fragments, with or without repeated names, gives the same calls', () => {
    const call = fc.record({
      id: fc.stringMatching(/^call_[a-z0-9]{1,8}$/),
      name: fc.stringMatching(/^[a-z_]{1,12}$/),
      arguments: fc.json(),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(call, { minLength: 1, maxLength: 4, selector: (c) => c.id }),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        (calls, size, repeat) => {
          const chunks: ToolCallFragment[][] = [];
          calls.forEach((c, index) => {
            chunks.push([{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }]);
            for (let at = 0; at < c.arguments.length; at += size) {
              const args = c.arguments.slice(at, at + size);
              chunks.push([
                repeat ? { index, id: c.id, function: { name: c.name, arguments: args } } : { index, function: { arguments: args } },
              ]);
            }
          });
          expect(assemble(...chunks)).toEqual(calls);
        },
      ),
      { numRuns: 200 },
    );
  });
});
