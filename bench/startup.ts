// `npm run bench -- startup`: how fast Parley's entry points start, against a bare `node -e 0`.
// Wall times of child processes (medians of RUNS each): `parley --help`, `parley knowledge search`
// over 10k pages, and `npm start` (bin/start.mjs) until it prints its ready block.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDatabaseUrl } from '../src/config/config.ts';
import { knowledgeIndexFile } from '../src/knowledge/index-location.ts';
import { KnowledgeBase } from '../src/knowledge/knowledge-base.ts';
import { openStore } from '../src/store/store.ts';
import { loadCorpus } from './knowledge-corpus.ts';
import { startScriptNodeOptions } from '../test/helpers/start-script.ts';
import { generatedPage, generatorBase } from './knowledge-generator.ts';

const ROOT = join(import.meta.dirname, '..');
const PARLEY = join(ROOT, 'bin', 'parley.mjs');
const START = join(ROOT, 'bin', 'start.mjs');
const RUNS = 11;
const PAGES = 10_000;
const BATCH = 500;

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

/** A SQLite database holding the grammY corpus plus generated pages up to `size`, index built. */
async function knowledgeDb(dir: string, size: number): Promise<string> {
  const file = join(dir, 'parley.db');
  const target = parseDatabaseUrl(`file:${file}`);
  const store = await openStore(target);
  const kb = new KnowledgeBase({ repo: store.knowledge, indexFile: knowledgeIndexFile(target) });
  try {
    const corpus = await loadCorpus();
    const base = generatorBase(corpus);
    const pages = Array.from({ length: size }, (_, k) => (k < corpus.length ? corpus[k]! : generatedPage(base, k)));
    await kb.bulk(async () => {
      for (let n = 0; n < pages.length; n += BATCH) {
        const batch = pages.slice(n, n + BATCH).map(({ slug, title, summary, content, tags, references }) => ({
          slug,
          title,
          summary,
          content,
          tags,
          references,
        }));
        await kb.saveMany(batch, { source: 'import' });
      }
    });
    await kb.rebuild();
  } finally {
    await kb.close();
    await store.close();
  }
  return file;
}

function wallMs(args: string[], env: NodeJS.ProcessEnv, cwd: string): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${run.status}: ${run.stderr}`);
  return ms;
}

/** Wall time from spawning bin/start.mjs (as `npm start` does) to its ready block; the process is then killed. */
function startToReady(env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...startScriptNodeOptions(ROOT), START], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('Press Ctrl-C to stop.')) {
        resolve(performance.now() - started);
        child.kill('SIGKILL');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code} before it was ready:\n${out}`)));
  });
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-startup-'));
  try {
    const dbFile = await knowledgeDb(dir, PAGES);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: `file:${dbFile}`,
      PARLEY_LOG_LEVEL: 'silent',
      PARLEY_WEB: 'off',
      PARLEY_HTTP_PORT: '0',
    };
    wallMs([PARLEY, '--help'], env, dir); // builds dist/ first if the sources changed
    const sample = (args: string[]) => median(Array.from({ length: RUNS }, () => wallMs(args, env, dir)));
    const bare = sample(['-e', '0']);
    const rows: [string, number][] = [
      ['parley --help', sample([PARLEY, '--help'])],
      [`parley knowledge search (${PAGES / 1000}k pages)`, sample([PARLEY, 'knowledge', 'search', 'send a message with buttons'])],
    ];
    const ready: number[] = [];
    for (let i = 0; i < RUNS; i++) ready.push(await startToReady(env, dir));
    rows.push(['npm start to ready (no channel)', median(ready)]);
    console.log(`medians of ${RUNS} runs, wall time`);
    console.log(`  ${'node -e 0'.padEnd(40)} ${bare.toFixed(0).padStart(6)} ms`);
    for (const [name, ms] of rows) {
      console.log(
        `  ${name.padEnd(40)} ${ms.toFixed(0).padStart(6)} ms   +${(ms - bare).toFixed(0)} ms   ${(ms / bare).toFixed(1)}× node -e 0`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
