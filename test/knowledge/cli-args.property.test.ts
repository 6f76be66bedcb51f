// Property test of the `parley knowledge` command line: arbitrary argument vectors (commands,
// known and unknown flags, any Unicode including NUL and unpaired surrogates, numbers that are not
// numbers) run through the real commander program in-process. Every run ends with exit code 0, 1
// or 2, a failure says why on stderr, and nothing escapes as an unexpected error.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor, knowledgeTempDir, removeTempDirs, writeFiles, type CliRun } from './helpers.ts';

afterAll(removeTempDirs);

let cli: (argv: string[], stdin?: string) => Promise<CliRun>;

beforeAll(async () => {
  const dir = knowledgeTempDir('parley-cli-props-');
  mkdirSync(join(dir, 'docs'));
  writeFiles(dir, {
    'docs/a.md': '# Alpha\n\nFirst.\n',
    'docs/b.md': '---\ntitle: Beta\ntags: [x]\n---\nSecond.\n',
    'page.md': '# Page\n',
  });
  // $EDITOR `true` leaves the draft as it is, so `edit <slug>` without flags ends at once.
  cli = cliFor(join(dir, 'parley.db'), dir, { EDITOR: 'true', VISUAL: '' });
  for (const slug of ['a', 'billing/refunds']) {
    expect((await cli(['knowledge', 'add', '--slug', slug, '--title', `Page ${slug}`, '--content', 'Refunds take five days.'])).code).toBe(
      0,
    );
  }
});

const char = fc.oneof(
  { weight: 12, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('\0', '\uD800', '\uDC00', '\n', '\t', '中', '😀', '\u202E', ',') },
);
// Free text never names a place outside the test folder (`import /` would read the whole disk).
const freeText = fc.string({ unit: char, maxLength: 24 }).map((value) => value.replace(/^[/~]+/, '').replace(/\.\./g, '_'));
const special = fc.constantFrom(
  '',
  ' ',
  '-',
  '0',
  '-1',
  '1',
  '2',
  '1e3',
  'NaN',
  '99999999999999999999',
  '0x10',
  'a',
  'billing/refunds',
  'docs',
  'page.md',
  'out',
  'missing.md',
  'Bad Slug!',
  'a/../b',
  'the and of',
);
const value = fc.oneof({ weight: 2, arbitrary: special }, { weight: 3, arbitrary: freeText });
const slug = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('a', 'billing/refunds', 'new/page', 'b') }, value);
const number = fc.oneof(fc.integer({ min: -2, max: 5 }).map(String), value);
const path = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('docs', 'page.md', 'docs/a.md', '-', 'out', 'missing', '.') }, value);

/** Each command with arguments of the right shape (and junk mixed in below). */
const flag = (name: string, arb?: fc.Arbitrary<string>): fc.Arbitrary<string[]> => (arb ? arb.map((v) => [name, v]) : fc.constant([name]));
const pageFlags = [
  flag('--slug', slug),
  flag('--title', value),
  flag('--summary', value),
  flag('--tags', value),
  flag('--ref', value),
  flag('--content', value),
];
const json = flag('--json');
const COMMANDS: Record<string, { positional: fc.Arbitrary<string>[]; flags: fc.Arbitrary<string[]>[] }> = {
  add: { positional: [fc.oneof(path, fc.constant('-'))], flags: [...pageFlags, flag('--replace'), json] },
  import: { positional: [path], flags: [flag('--dry-run'), json] },
  list: { positional: [], flags: [flag('--tag', value), flag('--prefix', value), flag('--limit', number), flag('--offset', number), json] },
  show: { positional: [slug], flags: [flag('--revision', number), json] },
  edit: { positional: [slug], flags: [...pageFlags, flag('--file', path), json] },
  rm: { positional: [slug], flags: [json] },
  search: { positional: [value, value], flags: [flag('--limit', number), flag('--explain'), json] },
  export: { positional: [fc.constantFrom('out', 'out2/nested', 'page.md')], flags: [json] },
  history: { positional: [slug], flags: [json] },
  revert: { positional: [slug, number], flags: [json] },
  reindex: { positional: [], flags: [json] },
};

const wellFormed = fc.constantFrom(...Object.keys(COMMANDS)).chain((name) => {
  const { positional, flags } = COMMANDS[name]!;
  return fc
    .tuple(
      fc.tuple(...positional.map((arb) => fc.option(arb, { nil: undefined, freq: 8 }))),
      fc.subarray(flags).chain((chosen) => fc.tuple(...chosen)),
    )
    .map(([args, options]) => ['knowledge', name, ...args.filter((a): a is string => a !== undefined), ...options.flat()]);
});
const junk = fc.oneof(value, fc.constantFrom('--help', '-h', '--nope', '-x', '--', '--slug=a', '--json', 'nope'));
// Mostly well-formed command lines, some with a junk token spliced in somewhere.
const argv = fc.oneof(
  { weight: 3, arbitrary: wellFormed },
  {
    weight: 1,
    arbitrary: fc
      .tuple(wellFormed, junk, fc.nat())
      .map(([args, extra, at]) => [...args.slice(0, 1 + (at % args.length)), extra, ...args.slice(1 + (at % args.length))]),
  },
);
const stdin = fc.option(
  fc.oneof(
    fc.constant('---\ntitle: From stdin\n---\nText.\n'),
    fc.constant('---js\n{ title: "x" }\n---\n'),
    fc.string({ unit: char, maxLength: 60 }),
  ),
  { nil: undefined },
);

describe('arbitrary `parley knowledge` command lines', () => {
  it('end with exit code 0, 1 or 2, explain a failure on stderr, and never hit an unexpected error', async () => {
    await fc.assert(
      fc.asyncProperty(argv, stdin, async (args, input) => {
        const run = await cli(args, input);
        expect([0, 1, 2]).toContain(run.code);
        expect(run.err).not.toMatch(/unexpected error|\n\s+at /);
        if (run.code !== 0) expect(run.err.trim()).not.toBe('');
      }),
      { seed: 42, numRuns: 250 },
    );
  }, 60_000);
});
