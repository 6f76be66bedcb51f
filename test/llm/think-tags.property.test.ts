// `<think>...</think>` at the start of `content` (models served without a reasoning parser) is
// reasoning, however the stream splits it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ThinkTagSplitter } from '../../src/llm/think-tags.ts';

function split(pieces: string[]): { reasoning: string; text: string } {
  const splitter = new ThinkTagSplitter();
  let reasoning = '';
  let text = '';
  for (const part of [...pieces.map((piece) => splitter.feed(piece)), splitter.end()]) {
    reasoning += part.reasoning;
    text += part.text;
  }
  return { reasoning, text };
}

/** `text` cut at the given places. */
function cut(text: string, places: number[]): string[] {
  const at = [...new Set(places.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const p of at) {
    pieces.push(text.slice(from, p));
    from = p;
  }
  pieces.push(text.slice(from));
  return pieces;
}

describe('<think> blocks in content', () => {
  it('takes the block as reasoning and the rest as the answer', () => {
    expect(split(['<think>\nThe user greets me.\n</think>\n\nHello!'])).toEqual({ reasoning: '\nThe user greets me.\n', text: 'Hello!' });
    expect(split(['<thi', 'nk>plan', '</thi', 'nk>', '\n\n', 'Hi'])).toEqual({ reasoning: 'plan', text: 'Hi' });
  });

  it('leaves content without a leading block alone, tags later in the text included', () => {
    expect(split(['Use ', '<think> tags like this'])).toEqual({ reasoning: '', text: 'Use <think> tags like this' });
    expect(split(['<', 'b>bold</b>'])).toEqual({ reasoning: '', text: '<b>bold</b>' });
    expect(split(['<thi'])).toEqual({ reasoning: '', text: '<thi' });
  });

  it('an unfinished block is all reasoning', () => {
    expect(split(['<think>still going', ' </thi'])).toEqual({ reasoning: 'still going </thi', text: '' });
  });

  it('gives the same parts however the content is cut into deltas', () => {
    const plain = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '<', '>', '/', 't', 'h', 'i', 'n', 'k', '界') });
    fc.assert(
      fc.property(plain, plain, fc.boolean(), fc.array(fc.nat(200), { maxLength: 8 }), (thought, answer, withBlock, places) => {
        fc.pre(!thought.includes('</think>'));
        const content = withBlock ? `<think>${thought}</think>${answer}` : answer;
        const whole = split([content]);
        expect(split(cut(content, places))).toEqual(whole);
        if (withBlock) expect(whole).toEqual({ reasoning: thought, text: answer.trimStart() });
      }),
      { numRuns: 300 },
    );
  });
});
