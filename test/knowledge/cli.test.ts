// Every `parley knowledge` command, its success and its error paths (exit codes and messages),
// run in-process through runCli; one test runs the real bin/parley.mjs.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { cliFor, knowledgeTempDir, removeTempDirs, REPO_ROOT, writeFiles, type CliRun } from './helpers.ts';

afterAll(removeTempDirs);

let dir: string;
let cli: (argv: string[], stdin?: string) => Promise<CliRun>;

beforeEach(() => {
  dir = knowledgeTempDir('parley-cli-');
  cli = cliFor(join(dir, 'parley.db'), dir);
});

const ok = async (argv: string[], stdin?: string) => {
  const run = await cli(argv, stdin);
  expect(run.err, `stderr of parley ${argv.join(' ')}`).toBe('');
  expect(run.code).toBe(0);
  return run.out;
};

/** Runs a command that must fail; returns its single error line. */
const fails = async (argv: string[], code = 2, stdin?: string) => {
  const run = await cli(argv, stdin);
  expect(run.code, run.out + run.err).toBe(code);
  expect(run.err.trimEnd().split('\n')).toHaveLength(1);
  return run.err.trimEnd();
};

const addRefunds = () =>
  ok([
    'knowledge',
    'add',
    '--slug',
    'billing/refunds',
    '--title',
    'Refunds',
    '--summary',
    'How refunds work.',
    '--tags',
    'billing,support',
    '--content',
    'Refunds take five working days.',
  ]);

describe('parley knowledge add', () => {
  it('adds from flags, from a file, and from standard input', async () => {
    expect(await addRefunds()).toBe('Created billing/refunds (revision 1).\n');
    writeFiles(dir, { 'Shipping Rules.md': '# Shipping rules\n\nParcels leave on Mondays.\n' });
    expect(await ok(['knowledge', 'add', 'Shipping Rules.md', '--json'])).toMatch(
      /"status": "created",\n\s+"slug": "shipping-rules",\n\s+"revision": 1/,
    );
    expect(await ok(['knowledge', 'add', '-', '--slug', 'faq/returns'], '---\ntitle: Returns\n---\nReturn within 30 days.\n')).toBe(
      'Created faq/returns (revision 1).\n',
    );
    const listed = JSON.parse(await ok(['knowledge', 'list', '--json'])) as { slug: string; title: string }[];
    expect(listed.map((p) => [p.slug, p.title])).toEqual([
      ['billing/refunds', 'Refunds'],
      ['faq/returns', 'Returns'],
      ['shipping-rules', 'Shipping rules'],
    ]);
  });

  it('takes the title of a file or of standard input without a heading or front matter from its first line, else from its name', async () => {
    writeFiles(dir, { 'untitled.md': 'no heading, just *notes*\nsecond line\n', 'deploy_checklist.md': '```sh\nnpm ci\n```\n' });
    expect(await ok(['knowledge', 'add', 'untitled.md'])).toBe('Created untitled (revision 1).\n');
    expect(await ok(['knowledge', 'add', 'deploy_checklist.md'])).toBe('Created deploy_checklist (revision 1).\n');
    expect(await ok(['knowledge', 'add', '-', '--slug', 'notes/standup'], 'Standup moved to 10:00.\n\nFrom Monday on.\n')).toBe(
      'Created notes/standup (revision 1).\n',
    );
    expect(await ok(['knowledge', 'add', '-', '--slug', 'notes/empty-one'], '\n')).toBe('Created notes/empty-one (revision 1).\n');
    const titles = (JSON.parse(await ok(['knowledge', 'list', '--json'])) as { slug: string; title: string }[]).map((p) => [
      p.slug,
      p.title,
    ]);
    expect(titles).toEqual([
      ['deploy_checklist', 'deploy checklist'],
      ['notes/empty-one', 'empty one'],
      ['notes/standup', 'Standup moved to 10:00.'],
      ['untitled', 'no heading, just notes'],
    ]);
  });

  it('refuses a taken slug unless --replace, an empty title, a bad slug, an unreadable file and broken front matter', async () => {
    await addRefunds();
    expect(await fails(['knowledge', 'add', '--slug', 'billing/refunds', '--title', 'Again'])).toBe(
      'parley: a page with slug billing/refunds already exists (revision 1); use --replace or: parley knowledge edit billing/refunds',
    );
    expect(await ok(['knowledge', 'add', '--slug', 'billing/refunds', '--title', 'Again', '--replace'])).toBe(
      'Updated billing/refunds (revision 2).\n',
    );
    expect(await fails(['knowledge', 'add', '--slug', 'x', '--title', '   '])).toBe('parley: title is empty');
    expect(await fails(['knowledge', 'add', '--title', 'No slug'])).toBe('parley: give --slug (or a file whose front matter has a slug)');
    expect(await fails(['knowledge', 'add', '--slug', 'Bad Slug!', '--title', 'T'])).toMatch(
      /^parley: slug must be lower-case letters, digits and/,
    );
    expect(await fails(['knowledge', 'add', 'missing.md'])).toBe('parley: cannot read missing.md: no such file');
    writeFiles(dir, { 'broken.md': '---\ntitle: [oops\n---\nbody\n', 'blank-title.md': '---\ntitle: " "\n---\nbody\n' });
    expect(await fails(['knowledge', 'add', 'broken.md'])).toMatch(/^parley: broken.md: invalid front matter: /);
    expect(await fails(['knowledge', 'add', 'blank-title.md'])).toBe(
      'parley: blank-title.md: title is empty: give the front matter a title, or remove the title line to take it from the first line',
    );
    expect(await fails(['knowledge', 'add', '-'], 2, '# From stdin\n')).toBe(
      'parley: give --slug (standard input has no file name to take it from)',
    );
  });
});

describe('parley knowledge import', () => {
  it('imports a folder, reports, is idempotent, and shows a dry run', async () => {
    writeFiles(dir, { 'docs/a.md': '# Alpha\n\nFirst.\n', 'docs/b.md': '---\ntitle: Beta\n---\nSecond.\n' });
    expect(await ok(['knowledge', 'import', 'docs'])).toBe('Created 2, updated 0, unchanged 0, failed 0.\n');
    expect(await ok(['knowledge', 'import', 'docs'])).toBe('Created 0, updated 0, unchanged 2, failed 0.\n');
    writeFiles(dir, { 'docs/b.md': '---\ntitle: Beta 2\n---\nSecond.\n', 'docs/c.md': '# Gamma\n' });
    const dry = await ok(['knowledge', 'import', 'docs', '--dry-run']);
    expect(dry).toMatch(/would be.*file.*slug/);
    expect(dry).toMatch(/updated.*b\.md.*b/);
    expect(dry).toMatch(/created.*c\.md.*c/);
    expect(dry).toContain('Dry run (nothing written): would create 1, update 1, unchanged 1, failed 0.');
    expect(await ok(['knowledge', 'show', 'b', '--json'])).toContain('"title": "Beta"');
    const report = JSON.parse(await ok(['knowledge', 'import', 'docs', '--json'])) as { counts: Record<string, number> };
    expect(report.counts).toEqual({ created: 1, updated: 1, unchanged: 1, failed: 0 });
  });

  it('finishes the import, lists failures with reasons and names them; exits 2 for bad files, 1 for unreadable ones, 2 for a missing folder', async () => {
    writeFiles(dir, { 'docs/good.md': '# Good\n', 'docs/bad.md': '---\ntitle: [x\n---\n' });
    const run = await cli(['knowledge', 'import', 'docs']);
    expect(run.code).toBe(2);
    expect(run.out).toMatch(/bad\.md.*invalid front matter/);
    expect(run.out).toContain('Created 1, updated 0, unchanged 0, failed 1.');
    expect(run.err).toMatch(/^parley: bad\.md could not be imported: invalid front matter: .*\n$/);
    symlinkSync(join(dir, 'docs', 'gone.md'), join(dir, 'docs', 'dangling.md'));
    const mixed = await cli(['knowledge', 'import', 'docs']);
    expect(mixed.code).toBe(1);
    expect(mixed.err).toBe('parley: 2 files could not be imported (see the report): bad.md, dangling.md\n');
    expect(await fails(['knowledge', 'import', 'nowhere'])).toBe('parley: cannot read nowhere: no such file or folder');
  });
});

describe('parley knowledge list and show', () => {
  it('lists pages as a table, filters by tag and prefix, and pages through them', async () => {
    expect(await ok(['knowledge', 'list'])).toContain('No knowledge pages yet');
    await addRefunds();
    await ok(['knowledge', 'add', '--slug', 'faq/returns', '--title', 'Returns']);
    const table = await ok(['knowledge', 'list']);
    expect(table).toMatch(/slug.*title.*tags.*rev.*source.*updated/);
    expect(table).toMatch(/billing\/refunds.*Refunds.*billing, support.*1.*cli/);
    expect(await ok(['knowledge', 'list', '--tag', 'Billing'])).not.toContain('faq/returns');
    expect(await ok(['knowledge', 'list', '--prefix', 'faq/'])).not.toContain('billing/refunds');
    expect(await ok(['knowledge', 'list', '--limit', '1'])).toContain('Showing 1-1 of 2 pages');
    expect(await fails(['knowledge', 'list', '--limit', 'lots'])).toBe(
      'parley: --limit expects a positive whole number up to 999999999 (got "lots")',
    );
    // Found by the property test: 1e20 passed as a whole number and crashed the query.
    for (const limit of ['99999999999999999999', '1e3', '0x10', ' 5', '-1']) {
      expect(await fails(['knowledge', 'list', '--limit', limit])).toBe(
        `parley: --limit expects a positive whole number up to 999999999 (got "${limit}")`,
      );
    }
    expect(await fails(['knowledge', 'search', 'refunds', '--limit', '99999999999999999999'])).toMatch(
      /^parley: --limit expects a positive whole number/,
    );
  });

  it('shows a page or an older revision, and names unknown slugs and revisions', async () => {
    await addRefunds();
    await ok(['knowledge', 'edit', 'billing/refunds', '--content', 'Refunds take three days.']);
    const shown = await ok(['knowledge', 'show', 'billing/refunds']);
    expect(shown).toMatch(/^billing\/refunds · revision 2 \(current\) · cli · /);
    expect(shown).toContain('Title: Refunds\nSummary: How refunds work.\nTags: billing, support\n\nRefunds take three days.\n');
    expect(await ok(['knowledge', 'show', 'billing/refunds', '--revision', '1'])).toContain('revision 1 (current is r2)');
    expect(JSON.parse(await ok(['knowledge', 'show', 'billing/refunds', '--json']))).toMatchObject({
      slug: 'billing/refunds',
      revision: 2,
    });
    expect(await fails(['knowledge', 'show', 'nope'])).toBe('parley: no knowledge page with slug nope (see: parley knowledge list)');
    expect(await fails(['knowledge', 'show', 'billing/refunds', '--revision', '7'])).toBe(
      'parley: billing/refunds has no revision 7 (it has 1-2)',
    );
  });
});

describe('parley knowledge edit', () => {
  function editorScript(body: string): string {
    const script = join(dir, 'editor.mjs');
    writeFileSync(
      script,
      `import { readFileSync, writeFileSync } from 'node:fs';\nconst file = process.argv[2];\nconst text = readFileSync(file, 'utf8');\n${body}\n`,
    );
    return `"${process.execPath}" "${script}"`;
  }
  const withEditor = (editor: string) => cliFor(join(dir, 'parley.db'), dir, { EDITOR: editor });

  it('opens $EDITOR on the page with front matter and saves what was written as a new revision', async () => {
    await addRefunds();
    const edit = withEditor(editorScript(`writeFileSync(file, text.replace('five working days', 'two days'));`));
    expect(await edit(['knowledge', 'edit', 'billing/refunds'])).toEqual({
      code: 0,
      out: 'Updated billing/refunds (revision 2).\n',
      err: '',
    });
    expect(await ok(['knowledge', 'show', 'billing/refunds'])).toContain('Refunds take two days.');
    const untouched = withEditor(editorScript(''));
    expect((await untouched(['knowledge', 'edit', 'billing/refunds'])).out).toBe(
      'Unchanged: billing/refunds already has this content (revision 2).\n',
    );
  });

  it('keeps the draft when the edit is invalid, and changes nothing when the editor fails', async () => {
    await addRefunds();
    const broken = await withEditor(editorScript(`writeFileSync(file, text.replace('title: Refunds', 'title: [oops'));`))([
      'knowledge',
      'edit',
      'billing/refunds',
    ]);
    expect(broken.code).toBe(2);
    const draft = /kept in (\S+)$/.exec(broken.err.trim())![1]!;
    expect(broken.err).toMatch(/^parley: invalid front matter: .*; your version is kept in /);
    expect(readFileSync(draft, 'utf8')).toContain('title: [oops');
    const renamed = await withEditor(editorScript(`writeFileSync(file, text.replace('slug: billing/refunds', 'slug: other'));`))([
      'knowledge',
      'edit',
      'billing/refunds',
    ]);
    expect(renamed).toMatchObject({ code: 2, err: expect.stringMatching(/^parley: the slug cannot be changed by edit/) });
    const failing = await withEditor(editorScript('process.exit(3);'))(['knowledge', 'edit', 'billing/refunds']);
    expect(failing).toMatchObject({
      code: 1,
      err: expect.stringMatching(/^parley: the editor \(.*\) exited with code 3; nothing changed\n$/),
    });
    expect(JSON.parse(await ok(['knowledge', 'show', 'billing/refunds', '--json']))).toMatchObject({ revision: 1 });
  });

  it('sets fields from flags or a file without an editor, and names unknown slugs', async () => {
    await addRefunds();
    expect(await ok(['knowledge', 'edit', 'billing/refunds', '--title', 'Refund policy', '--tags', 'money'])).toBe(
      'Updated billing/refunds (revision 2).\n',
    );
    writeFiles(dir, { 'new.md': '# Refunds v3\n\nNew text.\n' });
    expect(await ok(['knowledge', 'edit', 'billing/refunds', '--file', 'new.md'])).toBe('Updated billing/refunds (revision 3).\n');
    expect(JSON.parse(await ok(['knowledge', 'show', 'billing/refunds', '--json']))).toMatchObject({
      title: 'Refunds v3',
      slug: 'billing/refunds',
    });
    expect(await fails(['knowledge', 'edit', 'nope', '--title', 'x'])).toBe(
      'parley: no knowledge page with slug nope (see: parley knowledge list)',
    );
    expect(await fails(['knowledge', 'edit', 'billing/refunds', '--title', ''])).toBe('parley: title is empty');
  });
});

describe('parley knowledge rm, history and revert', () => {
  it('shows the history, reverts to an older revision as a new one, and deletes', async () => {
    await addRefunds();
    await ok(['knowledge', 'edit', 'billing/refunds', '--content', 'Refunds take three days.']);
    expect(await ok(['knowledge', 'revert', 'billing/refunds', '1'])).toBe('Reverted billing/refunds to revision 1 (now revision 3).\n');
    const history = await ok(['knowledge', 'history', 'billing/refunds']);
    expect(history).toMatch(/rev.*when.*source.*author.*note.*title.*hash/);
    expect(history).toMatch(/3 \*.*cli.*revert to r1.*Refunds/);
    expect(history).toMatch(/│ 2 .*cli/);
    const revisions = JSON.parse(await ok(['knowledge', 'history', 'billing/refunds', '--json'])) as {
      revision: number;
      content: string;
    }[];
    expect(revisions.map((r) => r.revision)).toEqual([3, 2, 1]);
    expect(revisions[0]!.content).toBe(revisions[2]!.content);
    expect(await ok(['knowledge', 'revert', 'billing/refunds', '3'])).toBe(
      'Unchanged: billing/refunds already has the content of revision 3.\n',
    );
    expect(JSON.parse(await ok(['knowledge', 'revert', 'billing/refunds', '2', '--json']))).toEqual({
      status: 'updated',
      slug: 'billing/refunds',
      revision: 4,
      revertedTo: 2,
    });

    expect(await ok(['knowledge', 'rm', 'billing/refunds'])).toBe('Deleted billing/refunds (it had 4 revisions).\n');
    expect(await ok(['knowledge', 'list'])).toContain('No knowledge pages yet');
  });

  it('names unknown slugs and revisions and rejects a non-numeric revision', async () => {
    await addRefunds();
    expect(await fails(['knowledge', 'history', 'nope'])).toBe('parley: no knowledge page with slug nope (see: parley knowledge list)');
    expect(await fails(['knowledge', 'revert', 'nope', '1'])).toBe('parley: no knowledge page with slug nope (see: parley knowledge list)');
    expect(await fails(['knowledge', 'revert', 'billing/refunds', '5'])).toBe('parley: billing/refunds has no revision 5 (it has 1-1)');
    expect(await fails(['knowledge', 'revert', 'billing/refunds', 'latest'])).toBe(
      'parley: revision expects a positive whole number up to 999999999 (got "latest")',
    );
    expect(await fails(['knowledge', 'rm', 'nope'])).toBe('parley: no knowledge page with slug nope (see: parley knowledge list)');
  });
});

describe('parley knowledge search, export and reindex', () => {
  it('searches with a table, JSON and a per-field explanation', async () => {
    await addRefunds();
    await ok([
      'knowledge',
      'add',
      '--slug',
      'faq/returns',
      '--title',
      'Returns',
      '--content',
      'Send the parcel back; we refund after checking it.',
    ]);
    const table = await ok(['knowledge', 'search', 'how', 'do', 'refunds', 'work']);
    expect(table).toMatch(/#.*score.*slug.*section.*snippet/);
    expect(table.indexOf('billing/refunds')).toBeLessThan(table.indexOf('faq/returns'));
    const json = JSON.parse(await ok(['knowledge', 'search', 'refunds', '--json', '--limit', '1'])) as {
      hits: { slug: string; title: string; section: string; snippet: string; score: number }[];
    };
    expect(json.hits).toHaveLength(1);
    expect(json.hits[0]).toMatchObject({
      slug: 'billing/refunds',
      title: 'Refunds',
      section: '(introduction)',
      snippet: 'Refunds take five working days.',
    });
    const explained = await ok(['knowledge', 'search', 'refunds', '--explain']);
    expect(explained).toMatch(/Query terms: refund/);
    expect(explained).toMatch(/score.*slug.*section.*best.*next.*title.*heading.*summary.*tags.*content/);
    expect(await ok(['knowledge', 'search', 'zebra'])).toBe('No page matches.\n');
    expect(await fails(['knowledge', 'search', ' '])).toBe('parley: the query is empty');
    expect(await fails(['knowledge', 'search', 'the', 'and', 'of'])).toBe(
      'parley: nothing to search for in "the and of" (only very common words)',
    );
    expect((await cli(['knowledge', 'search'])).code).toBe(2);
  });

  it('exports pages as files that import reads back, and reports an unwritable target', async () => {
    await addRefunds();
    expect(await ok(['knowledge', 'export', 'out'])).toBe('Exported 1 page to out.\n');
    expect(readFileSync(join(dir, 'out', 'billing', 'refunds.md'), 'utf8')).toBe(
      '---\nslug: billing/refunds\ntitle: Refunds\nsummary: How refunds work.\ntags:\n  - billing\n  - support\n---\n\nRefunds take five working days.\n',
    );
    expect(await ok(['knowledge', 'import', 'out'])).toBe('Created 0, updated 0, unchanged 1, failed 0.\n');
    expect(JSON.parse(await ok(['knowledge', 'export', 'out2', '--json']))).toMatchObject({ pages: 1, files: ['billing/refunds.md'] });
    writeFileSync(join(dir, 'a-file'), 'not a folder');
    expect(await fails(['knowledge', 'export', 'a-file'])).toMatch(/^parley: cannot write to a-file: (ENOTDIR|EEXIST)$/);
  });

  it('rebuilds the index and reports its size', async () => {
    await addRefunds();
    expect(await ok(['knowledge', 'reindex'])).toMatch(
      /^Indexed 1 pages \(1 sections\) in \d+\.\d s: .*parley\.knowledge-index\.db \(\d+ KB\)\.\n$/,
    );
    const stats = JSON.parse(await ok(['knowledge', 'reindex', '--json'])) as { pages: number; file: string };
    expect(stats.pages).toBe(1);
    expect(existsSync(stats.file)).toBe(true);
    expect(await ok(['knowledge', 'search', 'refunds'])).toContain('billing/refunds');
  });
});

describe('the real bin/parley.mjs', () => {
  it('imports, searches and fails with one line and exit code 2 on bad input', async () => {
    writeFiles(dir, {
      'docs/keyboards.md': '# Keyboards\n\nButtons under a message are inline keyboards.\n',
      'docs/menus.md': '# Menus\n\nInteractive menus.\n',
    });
    const run = promisify(execFile);
    const env = { ...process.env, DATABASE_URL: `file:${join(dir, 'parley.db')}`, PARLEY_LOG_LEVEL: 'silent' };
    const bin = join(REPO_ROOT, 'bin', 'parley.mjs');
    const imported = await run(process.execPath, [bin, 'knowledge', 'import', 'docs'], { cwd: dir, env });
    expect(imported.stdout).toBe('Created 2, updated 0, unchanged 0, failed 0.\n');
    const found = await run(process.execPath, [bin, 'knowledge', 'search', 'buttons under a message', '--json'], { cwd: dir, env });
    expect((JSON.parse(found.stdout) as { hits: { slug: string }[] }).hits[0]!.slug).toBe('keyboards');
    const failure = await run(process.execPath, [bin, 'knowledge', 'show', 'nope'], { cwd: dir, env }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2, stderr: 'parley: no knowledge page with slug nope (see: parley knowledge list)\n' });
  });
});
