// Property tests of the file → page path (what `knowledge add` and `import` run on every file):
// arbitrary contents — random front matter keys and values, random delimiters and language tags,
// binary bytes, any Unicode including unpaired surrogates, huge lines — either become a valid page
// or fail with the typed PageFileError, nothing else. And export → import is the identity.
import fc from 'fast-check';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { PageFileError, pageFromFile, parseFrontMatter, parsePageInput, renderPageFile } from '../../src/knowledge/page-file.ts';
import { PageInputSchema } from '../../src/knowledge/page.ts';
import { decodePageText } from '../../src/knowledge/text-input.ts';

const SEED = 42;

const anyChar = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '\n',
      '\r\n',
      '\r',
      '\t',
      ' ',
      ':',
      '-',
      '#',
      '"',
      "'",
      '[',
      ']',
      '{',
      '}',
      '!',
      '&',
      '*',
      '|',
      '>',
      '%',
      '@',
      '`',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('\0', '\uFEFF', '\uD800', '\uDFFF', '\u2028', '\u0085', '中', '😀') },
);
const text = (maxLength: number) => fc.string({ unit: anyChar, maxLength });

const opening = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('---', '---yaml', '--- ') },
  fc.constantFrom(
    '---',
    '---yaml',
    '---YML',
    '---json',
    '--- yaml ',
    '---js',
    '---javascript',
    '--- js',
    '---coffee',
    '----',
    '--',
    ' ---',
    '---\t',
  ),
  text(12).map((tag) => `---${tag.replace(/[\r\n]/g, '')}`),
);
const closing = fc.oneof({ weight: 4, arbitrary: fc.constant('---') }, fc.constantFrom('--- ', '...', '----', '', '---\t\t', '---js'));

const key = fc.oneof(
  fc.constantFrom('slug', 'title', 'summary', 'tags', 'references', 'prev', '__proto__', 'constructor', '<<', '? x', '- a'),
  text(10),
);
const value = fc.oneof(
  text(40),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    '!!js/function "function(){}"',
    '!!binary aGk=',
    '!foo bar',
    '&a [*a]',
    '*nope',
    '[unclosed',
    '{a: 1',
    '"\\uD800"',
    '"\\0"',
    '|\n  block',
    '~',
    '.nan',
    '0x1F',
    '2020-01-01',
  ),
);
const word = fc.stringMatching(/^[A-Za-z中][A-Za-z0-9 中-]{0,20}$/);
const plausible = fc
  .record(
    {
      title: word,
      slug: fc.stringMatching(/^[a-z0-9][a-z0-9/-]{0,15}$/),
      tags: fc.array(word, { maxLength: 3 }),
      extra: fc.tuple(key, value),
    },
    { requiredKeys: ['title'] },
  )
  .map(
    ({ extra, ...data }) =>
      `${YAML.stringify(data)}${extra ? `${extra[0]}: ${typeof extra[1] === 'string' ? extra[1] : JSON.stringify(extra[1])}` : ''}`,
  );
const frontMatterLines = fc.oneof(
  { weight: 3, arbitrary: plausible },
  fc
    .array(fc.tuple(key, value), { maxLength: 6 })
    .map((pairs) => pairs.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('\n')),
  fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }).map((data) => YAML.stringify(data)),
  fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }).map((data) => JSON.stringify(data)),
  text(200),
);
const hugeLine = fc.constantFrom('x'.repeat(300_000), `# ${'title '.repeat(50_000)}`, `${'a: '.repeat(20_000)}b`);
const body = fc.oneof(
  { weight: 5, arbitrary: text(300) },
  { weight: 4, arbitrary: fc.tuple(text(40), text(300)).map(([heading, rest]) => `# ${heading}\n\n${rest}`) },
  { weight: 1, arbitrary: hugeLine },
);

const fileText = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(opening, frontMatterLines, closing, body).map(([o, fm, c, b]) => `${o}\n${fm}\n${c}\n${b}`) },
  { weight: 1, arbitrary: fc.tuple(opening, frontMatterLines).map(([o, fm]) => `${o}\n${fm}`) },
  { weight: 2, arbitrary: body },
);
const path = fc.oneof(
  { weight: 3, arbitrary: fc.constant('notes/page.md') },
  fc.constantFrom('a.md', 'Guides/Getting Started.md', '中文/页面.md', '', '../x.md', '.md'),
  text(30),
);

/** Runs `work`; a PageFileError is an accepted outcome, any other error fails the property. */
function pageOrPageFileError(work: () => unknown): void {
  try {
    const page = work();
    // Whatever comes out is a page that validates as is.
    expect(PageInputSchema.parse(page)).toEqual(page);
  } catch (error) {
    if (!(error instanceof PageFileError)) throw error;
    expect(error.message).not.toBe('');
    expect(error.message).not.toContain('\n');
  }
}

describe('reading arbitrary files as pages', () => {
  it('pageFromFile yields a valid page or a one-line PageFileError, for any text', () => {
    fc.assert(
      fc.property(fileText, path, (contents, file) => pageOrPageFileError(() => pageFromFile(contents, file))),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('parseFrontMatter never runs or accepts a language other than YAML/JSON', () => {
    const foreign = fc.constantFrom('js', 'javascript', 'JS', 'coffee', 'ts', 'toml', 'lua', 'sh');
    fc.assert(
      fc.property(foreign, fc.constantFrom('', ' ', '  '), frontMatterLines, body, (language, gap, fm, rest) => {
        expect(() => parseFrontMatter(`---${gap}${language}\n${fm}\n---\n${rest}`)).toThrow(/^front matter in ".*" is not allowed/);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('bytes (binary, invalid UTF-8, random) go through decoding to a page or a PageFileError', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 400 }),
      fileText.map((contents) => new TextEncoder().encode(contents)),
      fc
        .tuple(fileText, fc.uint8Array({ minLength: 1, maxLength: 8 }))
        .map(([contents, junk]) => Buffer.concat([Buffer.from(contents), junk])),
    );
    fc.assert(
      fc.property(bytes, path, (raw, file) => pageOrPageFileError(() => pageFromFile(decodePageText(raw), file))),
      { seed: SEED, numRuns: 1500 },
    );
  });
});

describe('export → import', () => {
  const slugPart = fc.stringMatching(/^[a-z0-9中][a-z0-9._中-]{0,10}$/);
  const page = fc.record({
    slug: fc.array(slugPart, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/')),
    title: text(60),
    summary: text(120),
    content: text(400),
    tags: fc.array(text(15), { maxLength: 4 }),
    references: fc.array(text(30), { maxLength: 3 }),
  });

  it('a file rendered for any valid page reads back as the same page', () => {
    fc.assert(
      fc.property(page, (candidate) => {
        let valid: ReturnType<typeof parsePageInput>;
        try {
          valid = parsePageInput(candidate);
        } catch (error) {
          if (error instanceof PageFileError) return; // not a page to begin with
          throw error;
        }
        expect(pageFromFile(renderPageFile(valid), 'ignored.md')).toEqual(valid);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});
