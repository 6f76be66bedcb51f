// Defect 11: binary input (NUL bytes, invalid UTF-8) given to `knowledge add` (a file or standard
// input) or found by `knowledge import` was stored as a page, and text that is not valid Unicode
// (unpaired surrogates) was stored mangled. The real CLI must refuse it by name and store nothing.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { PageFileError, pageFromFile, parsePageInput } from '../../src/knowledge/page-file.ts';
import { cliFor, knowledgeTempDir, removeTempDirs, runParley } from './helpers.ts';

afterAll(removeTempDirs);

const NUL_FILE = Buffer.concat([Buffer.from('# Looks like a page\n\nText '), Buffer.from([0, 0, 1, 2, 0xff]), Buffer.from(' more\n')]);
const LATIN1_FILE = Buffer.from('# Caf\xe9 menu\n\nCr\xe8me br\xfbl\xe9e.\n', 'latin1');
const NOT_TEXT = 'not a text file: it contains NUL bytes (binary data, or UTF-16 text)';
const NOT_UTF8 = 'not UTF-8 text: it contains byte sequences that are not valid UTF-8 (binary data, or another encoding)';

let dir: string;
let dbFile: string;
beforeEach(() => {
  dir = knowledgeTempDir('parley-binary-');
  dbFile = join(dir, 'parley.db');
});

async function storedSlugs(): Promise<string[]> {
  const listed = await runParley(['knowledge', 'list', '--json'], { cwd: dir, dbFile });
  expect(listed.code, listed.err).toBe(0);
  return (JSON.parse(listed.out) as { slug: string }[]).map((p) => p.slug);
}

describe('binary and non-UTF-8 input', () => {
  it('knowledge add refuses such a file or standard input, naming it, and stores nothing', async () => {
    writeFileSync(join(dir, 'nul.md'), NUL_FILE);
    writeFileSync(join(dir, 'latin1.md'), LATIN1_FILE);
    const runs = [
      [['knowledge', 'add', 'nul.md'], undefined, `parley: nul.md: ${NOT_TEXT}\n`],
      [['knowledge', 'add', 'latin1.md'], undefined, `parley: latin1.md: ${NOT_UTF8}\n`],
      [['knowledge', 'add', '-', '--slug', 'a'], NUL_FILE, `parley: standard input: ${NOT_TEXT}\n`],
      [['knowledge', 'add', '-', '--slug', 'b'], LATIN1_FILE, `parley: standard input: ${NOT_UTF8}\n`],
    ] as const;
    for (const [argv, stdin, err] of runs) {
      const run = await runParley([...argv], { cwd: dir, dbFile, ...(stdin ? { stdin } : {}) });
      expect({ code: run.code, err: run.err }, argv.join(' ')).toEqual({ code: 2, err });
    }
    expect(await storedSlugs()).toEqual([]);
  }, 60_000);

  it('knowledge import reports each such file with its reason, imports the rest and exits 2', async () => {
    writeFileSync(join(dir, 'nul.md'), NUL_FILE);
    writeFileSync(join(dir, 'latin1.md'), LATIN1_FILE);
    writeFileSync(join(dir, 'good.md'), '# Good\n\nUTF-8 text: café, 中文.\n');
    const run = await runParley(['knowledge', 'import', '.', '--json'], { cwd: dir, dbFile });
    expect(run.code, run.err).toBe(2);
    expect(run.err).toBe('parley: 2 files could not be imported (see the report): latin1.md, nul.md\n');
    const report = JSON.parse(run.out) as { outcomes: { file: string; status: string; reason?: string }[] };
    expect(report.outcomes.map((o) => [o.file, o.status, o.reason])).toEqual([
      ['good.md', 'created', undefined],
      ['latin1.md', 'failed', NOT_UTF8],
      ['nul.md', 'failed', NOT_TEXT],
    ]);
    expect(await storedSlugs()).toEqual(['good']);
  }, 60_000);

  it('stops reading endless input at the size limit instead of exhausting memory', async () => {
    const cli = cliFor(dbFile, dir);
    expect(await cli(['knowledge', 'add', '/dev/zero', '--slug', 'z'])).toEqual({
      code: 2,
      out: '',
      err: 'parley: /dev/zero: not read: it is larger than 8 MB (a page holds at most 1,000,000 characters)\n',
    });
  });
});

describe('links in an imported folder', () => {
  it('reads a link only when it leads to a file inside the folder', async () => {
    const docs = join(dir, 'docs');
    mkdirSync(docs);
    writeFileSync(join(dir, 'secret.txt'), '# Secret\n\npassword=hunter2\n');
    writeFileSync(join(docs, 'page.md'), '# Page\n\nInside.\n');
    symlinkSync(join(dir, 'secret.txt'), join(docs, 'leak.md'));
    symlinkSync(join(docs, 'page.md'), join(docs, 'alias.md'));
    const cli = cliFor(dbFile, dir);
    const run = await cli(['knowledge', 'import', 'docs', '--json']);
    const report = JSON.parse(run.out) as { outcomes: { file: string; status: string; reason?: string }[] };
    expect(report.outcomes.map((o) => [o.file, o.status, o.reason])).toEqual([
      ['alias.md', 'created', undefined],
      ['leak.md', 'failed', 'not read: it is a link to a file outside the imported folder'],
      ['page.md', 'created', undefined],
    ]);
    expect(run.code).toBe(2);
    expect(run.err).toBe('parley: leak.md could not be imported: not read: it is a link to a file outside the imported folder\n');
  });
});

describe('text that is not valid Unicode, from flags, JSON or front matter', () => {
  const refusal = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(PageFileError);
      return (error as Error).message;
    }
    throw new Error('expected a PageFileError');
  };

  it('refuses unpaired surrogates and NUL characters in every field, naming the field', () => {
    // What write_knowledge_page receives from the model (JSON.parse keeps "\ud800" as a lone surrogate).
    const fromJson = JSON.parse(
      '{"slug":"a","title":"T\\ud800","summary":"S","content":"x\\u0000y","tags":["ok","b\\udc00"],"references":["\\ud83d"]}',
    ) as unknown;
    expect(refusal(() => parsePageInput(fromJson))).toBe(
      'title is not valid Unicode (it contains an unpaired surrogate); content contains a NUL character (binary data is not text); a tag is not valid Unicode (it contains an unpaired surrogate); a reference is not valid Unicode (it contains an unpaired surrogate)',
    );
    expect(refusal(() => pageFromFile('---\ntitle: "Bad \\uD800 title"\n---\nText\n', 'a.md'))).toBe(
      'title is not valid Unicode (it contains an unpaired surrogate)',
    );
    expect(refusal(() => pageFromFile('---json\n{"title": "ok", "summary": "\\u0000"}\n---\nText\n', 'a.md'))).toBe(
      'summary contains a NUL character (binary data is not text)',
    );
    expect(refusal(() => pageFromFile('# Title\n\nIntro.\n\n## Part\n\nlone \uDC00 low surrogate\n', 'a.md'))).toBe(
      'content is not valid Unicode (it contains an unpaired surrogate)',
    );
    // A correctly paired surrogate (an emoji) is fine.
    expect(parsePageInput({ slug: 'e', title: 'Smile 😀', content: '😀' }).title).toBe('Smile 😀');
  });

  it('refuses such command-line arguments (possible in-process) before doing anything', async () => {
    const cli = cliFor(dbFile, dir);
    expect(await cli(['knowledge', 'add', '--slug', 's', '--title', 'T\uD800'])).toEqual({
      code: 2,
      out: '',
      err: 'parley: argument 6 is not valid text (it contains an unpaired surrogate)\n',
    });
    expect(await cli(['knowledge', 'show', 'a\0b'])).toEqual({
      code: 2,
      out: '',
      err: 'parley: argument 3 is not valid text (it contains a NUL character)\n',
    });
  });
});
