// The search commands of the real `parley` CLI: `search -` answering a stream of queries with one
// JSON line each, the synonyms commands, imports committed in whole batches (checked by killing
// the import midway), and a search that loads neither the database client nor the Markdown parser.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPages } from '../../src/knowledge/importer.ts';
import { CORPUS_DIR, REPO_ROOT, cliFor, knowledgeTempDir, openKnowledge, removeTempDirs, runParley, writeFiles } from './helpers.ts';

afterAll(removeTempDirs);

let dir: string;
let dbFile: string;
beforeAll(async () => {
  const knowledge = await openKnowledge();
  dir = knowledge.dir;
  dbFile = knowledge.dbFile;
  await importPages(knowledge.kb, CORPUS_DIR);
  await knowledge.close();
});

describe('parley knowledge search -', () => {
  it('answers each query line with one JSON line: results with scores, and the time taken', async () => {
    const input = 'send a message with buttons\n\n   \nthe and of\nwebhok 怎么设置\r\n';
    const run = await runParley(['knowledge', 'search', '-', '--limit', '3'], { cwd: dir, dbFile, stdin: Buffer.from(input) });
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const lines = run.out
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => l.query)).toEqual(['send a message with buttons', 'the and of', 'webhok 怎么设置']);
    const [buttons, common, typo] = lines as {
      results: { slug: string; score: number }[];
      ms: number;
      error?: string;
      corrections: unknown[];
    }[];
    expect(buttons!.results[0]!.slug).toBe('en/plugins/keyboard');
    expect(buttons!.results).toHaveLength(3);
    expect(buttons!.results.every((r) => r.score > 0)).toBe(true);
    expect(buttons!.ms).toBeGreaterThan(0);
    expect(common!).toMatchObject({ results: [], error: 'nothing to search for (only very common words)' });
    expect(typo!.corrections).toEqual([{ from: 'webhok', to: ['webhook'] }]);
  });

  it('takes a search of one word "-" only as standard input when it is the whole query', async () => {
    const cli = cliFor(dbFile, dir);
    const run = await cli(['knowledge', 'search', 'long', '-', 'polling', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out).hits[0].slug).toMatch(/deployment-types/);
  });
});

describe('parley knowledge search marks what would go into the prompt', () => {
  type Hit = { slug: string; score: number; match: number; prompt: boolean };
  const search = async (env: Record<string, string>, ...args: string[]) => {
    const run = await cliFor(dbFile, dir, env)(['knowledge', 'search', ...args]);
    expect(run.code).toBe(0);
    return run;
  };

  it('as a field in JSON and a column in the table, by the configured threshold', async () => {
    const { hits } = JSON.parse((await search({}, 'proxy', '--json')).out) as { hits: Hit[] };
    expect(hits[0]).toMatchObject({ slug: 'en/advanced/proxy', prompt: true });
    // The pages the automatic context would take: good enough, and no more than its sections.
    for (const hit of hits) {
      expect(hit.match).toBeGreaterThanOrEqual(0);
      expect(hit.match).toBeLessThanOrEqual(1);
      if (hit.prompt) expect(hit.match).toBeGreaterThanOrEqual(0.3);
    }
    expect(hits.filter((h) => h.prompt).length).toBeLessThanOrEqual(3);
    expect(hits.some((h) => !h.prompt)).toBe(true);

    const table = (await search({}, 'proxy')).out;
    const row = /│ 1 │ \d+\.\d\d\s*│ 0\.\d\d\s*│ yes\s*│ en\/advanced\/proxy /;
    expect(table).toMatch(/│ score │ match │ prompt │ slug/);
    expect(table).toMatch(row);
    expect(table).toContain('prompt: pages the automatic context would add to this message: match >= 0.3 (PARLEY_KNOWLEDGE_MIN_MATCH)');
    expect((await search({}, 'proxy', '--explain')).out).toMatch(row);

    const lines = await runParley(['knowledge', 'search', '-'], { cwd: dir, dbFile, stdin: Buffer.from('proxy\n') });
    expect((JSON.parse(lines.out) as { results: Hit[] }).results[0]).toMatchObject({ slug: 'en/advanced/proxy', prompt: true });
  });

  it('marks nothing when the automatic context is off, and the old score threshold with a deprecation line', async () => {
    const off = await search({ PARLEY_KNOWLEDGE_AUTO_CONTEXT: 'false' }, 'proxy', '--json');
    expect((JSON.parse(off.out) as { hits: Hit[] }).hits.every((h) => !h.prompt)).toBe(true);
    expect((await search({ PARLEY_KNOWLEDGE_AUTO_CONTEXT: 'false' }, 'proxy')).out).toContain('prompt: none, the automatic context is off');

    const old = await search({ PARLEY_KNOWLEDGE_MIN_SCORE: '12' }, 'proxy', '--json');
    expect(old.err).toMatch(/^parley: PARLEY_KNOWLEDGE_MIN_SCORE is deprecated: /);
    // 'proxy' scores about 8: under the old threshold it never reached the prompt.
    expect((JSON.parse(old.out) as { hits: Hit[] }).hits.every((h) => !h.prompt)).toBe(true);
  });
});

describe('parley knowledge synonyms', () => {
  it('adds the admins’ groups, uses them in search, lists them, and removes words', async () => {
    const knowledge = await openKnowledge();
    await knowledge.kb.save(
      {
        slug: 'ops/release',
        title: 'Release checklist',
        summary: '',
        content: 'Every rollout goes through staging.',
        tags: [],
        references: [],
      },
      { source: 'cli' },
    );
    await knowledge.close();
    const cli = cliFor(knowledge.dbFile, knowledge.dir);
    const slugs = async (query: string) =>
      (JSON.parse((await cli(['knowledge', 'search', query, '--json'])).out) as { hits: { slug: string }[] }).hits.map((h) => h.slug);
    expect(await slugs('ship it')).toEqual([]);
    expect((await cli(['knowledge', 'synonyms', 'add', 'ship', 'rollout'])).out).toBe('Synonyms: ship, rollout.\n');
    expect((await cli(['knowledge', 'synonyms', 'add', 'deploy,Ship', 'go live'])).out).toBe('Synonyms: ship, rollout, deploy, go live.\n');
    expect(await slugs('ship it')).toEqual(['ops/release']);
    expect(await slugs('go live')).toEqual(['ops/release']);
    const listed = JSON.parse((await cli(['knowledge', 'synonyms', '--json'])).out) as { own: string[][]; builtin: string[][] };
    expect(listed.own).toEqual([['ship', 'rollout', 'deploy', 'go live']]);
    expect(listed.builtin.length).toBeGreaterThan(50);
    expect((await cli(['knowledge', 'synonyms'])).out).toMatch(/yours.*ship, rollout, deploy, go live/);
    // The list is a page with a history, never a search result.
    expect((await cli(['knowledge', 'history', 'parley/synonyms'])).out).toContain('synonyms add');
    expect(await slugs('synonyms')).toEqual([]);
    expect((await cli(['knowledge', 'synonyms', 'rm', 'SHIP'])).out).toBe('Removed "ship" from your synonyms.\n');
    expect(await slugs('ship it')).toEqual([]);
  });

  it('refuses bad groups with one line and exit code 2', async () => {
    const cli = cliFor(dbFile, dir);
    expect(await cli(['knowledge', 'synonyms', 'add', 'alone'])).toMatchObject({
      code: 2,
      err: 'parley: a synonym group needs at least two different words\n',
    });
    expect(await cli(['knowledge', 'synonyms', 'add', 'same', 'SAME'])).toMatchObject({ code: 2 });
    expect(await cli(['knowledge', 'synonyms', 'add', 'x'.repeat(61), 'y'])).toMatchObject({
      code: 2,
      err: 'parley: a synonym is longer than 60 characters\n',
    });
    expect(await cli(['knowledge', 'synonyms', 'add', 'a#b', 'c'])).toMatchObject({
      code: 2,
      err: 'parley: a synonym cannot contain , or #\n',
    });
    expect(await cli(['knowledge', 'synonyms', 'rm', 'button'])).toMatchObject({
      code: 2,
      err: 'parley: "button" is in a built-in group, which cannot be removed\n',
    });
    expect(await cli(['knowledge', 'synonyms', 'rm', 'nothing'])).toMatchObject({ code: 2 });
  });
});

describe('parley knowledge import', () => {
  it('commits whole batches: an import killed midway leaves a multiple of the batch size', async () => {
    const folder = knowledgeTempDir('parley-import-kill-');
    const files: Record<string, string> = {};
    for (let n = 0; n < 2_000; n++)
      files[`docs/page-${String(n).padStart(4, '0')}.md`] = `# Page ${n}\n\nSome text about topic ${n} and ${n * 7}.\n`;
    writeFiles(folder, files);
    const db = join(folder, 'parley.db');
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'parley.mjs'), 'knowledge', 'import', 'docs'], {
      cwd: folder,
      env: { ...process.env, DATABASE_URL: `file:${db}`, PARLEY_LOG_LEVEL: 'silent' },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const count = () => {
      try {
        const reader = new Database(db, { readonly: true, fileMustExist: true });
        try {
          return reader.prepare('SELECT count(*) FROM "KnowledgePage"').pluck().get() as number;
        } finally {
          reader.close();
        }
      } catch {
        return 0;
      }
    };
    let seen = 0;
    while (seen === 0 && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 10));
      seen = count();
    }
    child.kill('SIGKILL');
    await exited;
    const pages = count();
    expect(pages % 200).toBe(0);
    expect(pages).toBeGreaterThan(0);
  });
});

describe('start-up of a search', () => {
  it('loads neither the Prisma client nor the Markdown parser nor the MCP client nor node:crypto', async () => {
    const log = join(knowledgeTempDir('parley-modules-'), 'modules.txt');
    const hook = `data:text/javascript,${encodeURIComponent(`
      import { appendFileSync } from 'node:fs';
      import { registerHooks } from 'node:module';
      registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; } });
      // Node's own modules loaded by any means (import, require, process.getBuiltinModule).
      process.on('exit', () => appendFileSync(${JSON.stringify(log)}, process.moduleLoadList.join('\\n') + '\\n'));
    `)}`;
    writeFileSync(log, '');
    const run = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', hook, join(REPO_ROOT, 'bin', 'parley.mjs'), 'knowledge', 'search', 'send a message with buttons', '--json'],
        {
          cwd: dir,
          env: { ...process.env, DATABASE_URL: `file:${dbFile}`, PARLEY_LOG_LEVEL: 'silent' },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out).hits[0].slug).toBe('en/plugins/keyboard');
    const loaded = (await import('node:fs')).readFileSync(log, 'utf8');
    // The sources, the compiled JavaScript (dist/src/) or the bundled CLI (dist/bundle/, chunks named after their module).
    expect(loaded).toMatch(/knowledge-searcher(?:\.ts|\.js|-\w+\.js)\b/);
    // bin/parley.mjs has built dist/ by now; with a bundler installed the search runs from its bundle.
    if (existsSync(join(REPO_ROOT, 'dist', 'bundle', 'cli', 'main.js'))) {
      expect(loaded).toContain('/dist/bundle/cli/main.js');
      expect(loaded).not.toContain('/dist/src/cli/');
    }
    expect(loaded).not.toMatch(/@prisma\/client|adapter-better-sqlite3/);
    expect(loaded).not.toContain('markdown-it');
    expect(loaded).not.toContain('modelcontextprotocol');
    // Nothing a search does hashes or draws random ids; node:crypto alone takes ~5 ms to load.
    expect(loaded).toContain('NativeModule fs');
    expect(loaded).not.toMatch(/NativeModule (?:internal\/)?crypto\b/);
  });
});
