// The fast scanners indexing uses agree with their plain definitions: the tokenizer with a
// regular-expression version of its rules, the section splitter with markdown-it's outline on
// ordinary Markdown (headings, paragraphs, lists, fenced code with `#` lines in it).
import fc from 'fast-check';
import { stemmer } from 'stemmer';
import { describe, expect, it } from 'vitest';
import { outline } from '../../src/knowledge/markdown.ts';
import { splitSections } from '../../src/knowledge/search/sections.ts';
import { ENGLISH_STOP_WORDS } from '../../src/knowledge/stop-words.ts';
import { createTokenizer, tokenize } from '../../src/knowledge/tokenizer.ts';

// The rules, written plainly (see tokenizer.ts for why each exists).
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー]+/gu;
const WORD = /[\p{L}\p{N}_]+(?:[.\-/:@#$][\p{L}\p{N}_]+)*/gu;
const PUNCTUATION = /[.\-/:@#$_]+/;
const CAMEL_BOUNDARY = /(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;

function reference(text: string): string[] {
  const out: string[] = [];
  const term = (word: string) => {
    const lower = word.toLowerCase();
    if ((lower.length < 2 && !/\d/.test(lower)) || lower.length > 40 || ENGLISH_STOP_WORDS.has(lower)) return;
    out.push(/^[a-z]+$/.test(lower) ? stemmer(lower) : lower);
  };
  const latin = (stretch: string) => {
    for (const [raw] of stretch.matchAll(WORD)) {
      const word = raw.replace(/^_+|_+$/g, '');
      if (!word) continue;
      if (!PUNCTUATION.test(word) && !/[A-Z]/.test(word.slice(1))) {
        term(word);
        continue;
      }
      const pieces = word.split(PUNCTUATION).filter(Boolean);
      let parts = 0;
      for (const piece of pieces) {
        const split = piece.split(CAMEL_BOUNDARY).filter(Boolean);
        for (const part of split) {
          term(part);
          parts++;
        }
        if (split.length > 1 && pieces.length > 1 && piece.length <= 40) out.push(piece.toLowerCase());
      }
      if (parts > 1 && word.length <= 40) {
        out.push(word.toLowerCase());
        if (/[_-]/.test(word) && !/[./:@#$]/.test(word) && pieces.length > 1) out.push(pieces.join('').toLowerCase());
      }
    }
  };
  const normalised = text.normalize('NFKC');
  let last = 0;
  for (const match of normalised.matchAll(CJK_RUN)) {
    latin(normalised.slice(last, match.index));
    const chars = [...match[0]];
    if (chars.length === 1) out.push(match[0]);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
    last = match.index + match[0].length;
  }
  latin(normalised.slice(last));
  return out;
}

const pieces = fc.constantFrom(
  ...'aZ_.-/:@#$ 0é中文字かカ한ーѐ,;!\n\t'.split(''),
  '\uD800', // a lone surrogate
  '𠀀', // a Han character outside the basic plane
  '𝐀', // NFKC turns it into "A"
  'Ⅻ',
  'ｂｏｔ',
  'sendMessage',
  'HTMLParser',
  'parse_mode',
  'bot.api',
  '_emphasis_',
  'the',
  'running',
  'x1',
  '😀',
);

describe('the tokenizer', () => {
  it('gives the same terms as the plain definition of its rules', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(tokenize(text)).toEqual(reference(text));
      }),
      { seed: 42, numRuns: 3_000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        expect(tokenize(text)).toEqual(reference(text));
      }),
      { seed: 42, numRuns: 2_000 },
    );
  });

  it('gives the same terms from a fresh tokenizer as from one that has seen much text (interning never changes a result)', () => {
    const used = createTokenizer();
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(used(text)).toEqual(createTokenizer()(text));
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});

const inline = fc
  .array(fc.constantFrom('word', 'Bot', 'api', '`code`', '[link](https://x.y/#h)', '中文', '**bold**', '#tag', 'a#b'), {
    minLength: 1,
    maxLength: 6,
  })
  .map((w) => w.join(' '));
const block = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 4 }), inline).map(([level, text]) => `${'#'.repeat(level)} ${text}`),
  inline,
  fc.array(inline, { minLength: 1, maxLength: 3 }).map((items) => items.map((item) => `- ${item}`).join('\n')),
  fc
    .array(fc.oneof(inline, fc.constant('# not a heading'), fc.constant('## nor this')), { minLength: 1, maxLength: 3 })
    .map((lines) => ['```ts', ...lines, '```'].join('\n')),
);

describe('the section splitter', () => {
  it('splits ordinary Markdown where markdown-it does, with the same headings and the same Markdown', () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 12 }), (blocks) => {
        const markdown = blocks.join('\n\n');
        const ours = splitSections(markdown);
        const theirs = outline(markdown);
        expect(ours.sections.map((s) => s.path)).toEqual(theirs.sections.map((s) => s.path));
        expect(ours.sections.map((s) => s.markdown)).toEqual(theirs.sections.map((s) => s.markdown));
      }),
      { seed: 42, numRuns: 1_000 },
    );
  });
});
