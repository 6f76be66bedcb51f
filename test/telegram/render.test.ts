// CommonMark → Telegram HTML, checked by parsing the output the way Telegram does (the fake's parser).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markdownToTelegramHtml, parsedToTelegramHtml } from '../../adapters/telegram/render.ts';
import { parseTelegramHtml } from '../fakes/telegram/index.ts';

function shown(markdown: string) {
  return parseTelegramHtml(markdownToTelegramHtml(markdown));
}

/** Pieces of text and of Markdown (or HTML) syntax, whitespace of every kind: joined, they make lines and blocks. */
const PIECES = [
  ...'`*_[]()<>&!#|~\\-+=.):;\'"/ \t\n\r\f\v\u00a0\u2028\u3000\u00000',
  'word',
  'x y',
  '1.',
  '2)',
  '**',
  '~~',
  '    ',
  '\n\n',
  '\n- ',
  '\n# ',
  '\n===',
  '\n> ',
  '```',
  '&amp;',
  '*x*',
  '_y_',
  '[l](http://a.b)',
  'é中',
];

describe('telegram markdown rendering', () => {
  it('a plain line skips the parse with the same result (property)', () => {
    const text = fc.oneof(
      fc.array(fc.constantFrom(...PIECES), { maxLength: 10 }).map((pieces) => pieces.join('')),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
    );
    fc.assert(
      fc.property(text, (source) => {
        expect(markdownToTelegramHtml(source)).toBe(parsedToTelegramHtml(source));
      }),
      { numRuns: 20_000 },
    );
    // The shortcut is taken where it should be (and the property above is not vacuous).
    expect(markdownToTelegramHtml('The backup runs at 02:00, every night.')).toBe('The backup runs at 02:00, every night.');
  });

  it('renders emphasis, inline code and links as entities', () => {
    const { text, entities } = shown('Use **bold**, *italic*, ~~gone~~, `a < b` and [docs](https://example.com/?a=1&b="2").');
    expect(text).toBe('Use bold, italic, gone, a < b and docs.');
    expect(entities).toEqual([
      { type: 'bold', offset: 4, length: 4 },
      { type: 'italic', offset: 10, length: 6 },
      { type: 'strikethrough', offset: 18, length: 4 },
      { type: 'code', offset: 24, length: 5 },
      { type: 'text_link', offset: 34, length: 4, url: 'https://example.com/?a=1&b=%222%22' },
    ]);
  });

  it('escapes everything that is text, including raw HTML from the model', () => {
    const { text, entities } = shown('<b>not bold</b> & <script>alert(1)</script> 1 < 2 > 0 &amp;');
    expect(text).toBe('<b>not bold</b> & <script>alert(1)</script> 1 < 2 > 0 &');
    expect(entities).toEqual([]);
  });

  it('keeps fenced code verbatim in a pre block with its language', () => {
    const code = 'if (a < b && c > d) {\n  return "<tag>";\n}';
    const { text, entities } = shown(`Before:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nAfter.`);
    expect(text).toBe(`Before:\n\n${code}\n\nAfter.`);
    expect(entities).toEqual([{ type: 'pre', offset: 9, length: code.length, language: 'ts' }]);
    expect(shown('```\nplain\n```').entities).toEqual([{ type: 'pre', offset: 0, length: 5 }]);
  });

  it('renders headings, lists, quotes and tables readably', () => {
    const markdown = [
      '# Plan',
      '',
      '- first **step**',
      '- second',
      '  1. nested one',
      '  2. nested two',
      '',
      '> a quote',
      '> > nested quotes are flattened',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | `2` |',
    ].join('\n');
    const { text, entities } = shown(markdown);
    expect(text).toBe(
      [
        'Plan',
        '',
        '• first step',
        '• second',
        '  1. nested one',
        '  2. nested two',
        '',
        'a quote',
        '',
        'nested quotes are flattened',
        '',
        'a | b',
        '1 | 2',
      ].join('\n'),
    );
    expect(entities.map((e) => e.type)).toEqual(['bold', 'bold', 'blockquote', 'pre']);
  });

  it('shows links Telegram would refuse as text with their target', () => {
    expect(shown('see [the file](./notes.md) and ![chart](https://img.example/c.png)')).toEqual({
      text: 'see the file (./notes.md) and chart',
      entities: [{ type: 'text_link', offset: 30, length: 5, url: 'https://img.example/c.png' }],
    });
  });

  it('produces HTML Telegram accepts for partial Markdown met while streaming', () => {
    for (const partial of [
      'Hello **wor',
      '```ts\nconst a = 1',
      'a [link](http://exa',
      '> quote\n\n- item\n  - sub',
      '`unclosed',
      '***',
      '1. a\n2.',
    ]) {
      expect(() => shown(partial)).not.toThrow();
    }
  });

  it('keeps the visible text no longer than the Markdown source', () => {
    const samples = [
      '# Title\n\nSome *text* with `code`.\n\n- a\n- b\n\n---\n\n> q',
      '```python\nprint("x")\n```',
      '| col | other |\n|-----|-------|\n| 1 | 2 |',
      '[x](https://a.b) ![](https://i.j/k.png) [rel](foo)',
      '1) one\n2) two\n\n* star\n  * nested',
    ];
    for (const sample of samples) expect(shown(sample).text.length).toBeLessThanOrEqual(sample.length);
  });
});
