// One size of the knowledge benchmark: import the corpus and generated pages into a fresh SQLite
// database, rebuild the index, and measure size, latency, quality and the CLI's wall time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDatabaseUrl } from '../src/config/config.ts';
import { knowledgeIndexFile } from '../src/knowledge/index-location.ts';
import { KnowledgeBase } from '../src/knowledge/knowledge-base.ts';
import { KnowledgeIndex } from '../src/knowledge/search/knowledge-index.ts';
import { renderPageFile } from '../src/knowledge/page-file.ts';
import { planQuery } from '../src/knowledge/search/query.ts';
import { openStore } from '../src/store/store.ts';
import type { KnowledgePageRecord } from '../src/store/repos/knowledge.ts';
import { generatedPage, generatorBase, markdownBytes } from './knowledge-generator.ts';
import { GOLDEN_QUESTIONS } from './knowledge-golden.ts';
import { HARD_QUESTIONS } from './knowledge-hard.ts';
import { goldenQuality, hardQuality, type Rank } from './knowledge-quality.ts';

const BATCH = 200;
export const CLI_RUNS = 11;
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Latency {
  p50: number;
  p95: number;
  p99: number;
}

export interface ScaleFigures {
  pages: number;
  markdownBytes: number;
  importMs: number;
  /** CPU time of the whole process (all threads) during the timed import: less sensitive to other load than wall time. */
  importCpuMs: number;
  rebuildMs: number;
  indexBytes: number;
  rank: Latency;
  search: Latency;
  golden: { en: number; zh: number };
  hard: number;
  cliMs?: number;
  /** `parley knowledge import` of the same pages as Markdown files, wall time (sizes up to 10k). */
  cliImportMs?: number;
}

function latency(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

const fileBytes = (file: string) => [file, `${file}-wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);

function median(runs: () => number, count: number): number {
  const samples = Array.from({ length: count }, runs).sort((a, b) => a - b);
  return samples[Math.floor(count / 2)]!;
}

/** Wall time of `parley knowledge import` of `pages` written as Markdown files into a fresh database. */
function cliImport(pages: () => Iterable<KnowledgePageRecord>): number {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-files-'));
  try {
    for (const page of pages()) {
      const file = join(dir, 'docs', `${page.slug}.md`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, renderPageFile(page));
    }
    const env = { ...process.env, DATABASE_URL: `file:${join(dir, 'parley.db')}`, PARLEY_LOG_LEVEL: 'silent' };
    const started = performance.now();
    const run = spawnSync(process.execPath, [join(REPO, 'bin', 'parley.mjs'), 'knowledge', 'import', 'docs'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (run.status !== 0) throw new Error(`parley knowledge import exited with ${run.status}`);
    return performance.now() - started;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall time of `parley knowledge search` minus that of `node -e 0` (medians of CLI_RUNS runs each). */
function cliOverhead(dbFile: string, cwd: string): number {
  const env = { ...process.env, DATABASE_URL: `file:${dbFile}`, PARLEY_LOG_LEVEL: 'silent' };
  const time = (args: string[]) => () => {
    const started = performance.now();
    const run = spawnSync(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.status !== 0) throw new Error(`${args.join(' ')} exited with ${run.status}`);
    return performance.now() - started;
  };
  const search = time([join(REPO, 'bin', 'parley.mjs'), 'knowledge', 'search', 'send a message with buttons']);
  search(); // the first run fills tsx's transform cache
  return median(search, CLI_RUNS) - median(time(['-e', '0']), CLI_RUNS);
}

export async function measureScale(corpus: KnowledgePageRecord[], size: number): Promise<ScaleFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-scale-'));
  const target = parseDatabaseUrl(`file:${join(dir, 'parley.db')}`);
  const store = await openStore(target);
  const indexFile = knowledgeIndexFile(target);
  const kb = new KnowledgeBase({ repo: store.knowledge, indexFile });
  const base = generatorBase(corpus);
  try {
    let markdown = 0;
    let importMs = 0;
    let importCpuMs = 0;
    const cpuMs = () => {
      const usage = process.resourceUsage();
      return (usage.userCPUTime + usage.systemCPUTime) / 1000;
    };
    const input = (page: KnowledgePageRecord) => ({
      slug: page.slug,
      title: page.title,
      summary: page.summary,
      content: page.content,
      tags: page.tags,
      references: page.references,
    });
    // As `parley knowledge import` does: batches of 200 pages, each one transaction, indexed in
    // bulk. All pages are generated before the timed part (about 1 GB of strings at 100k): when
    // they were generated a chunk at a time between timed parts, the worker threads went on
    // analysing the chunk's last pages while the next one was generated, work the timings left out
    // (up to 4,000 pages a chunk once workers took 1,000-page jobs).
    const pages = Array.from({ length: size }, (_, k) => (k < corpus.length ? corpus[k]! : generatedPage(base, k)));
    for (const page of pages) markdown += markdownBytes(page);
    await kb
      .bulk(async () => {
        const started = performance.now();
        const cpuStarted = cpuMs();
        for (let n = 0; n < pages.length; n += BATCH) await kb.saveMany(pages.slice(n, n + BATCH).map(input), { source: 'import' });
        return () => {
          importMs = performance.now() - started;
          importCpuMs = cpuMs() - cpuStarted;
        };
      })
      .then((stop) => stop());
    pages.length = 0; // the rest of the run needs the memory more
    const rebuildStarted = performance.now();
    await kb.rebuild();
    const rebuildMs = performance.now() - rebuildStarted;
    const indexBytes = fileBytes(indexFile);

    const queries = [...GOLDEN_QUESTIONS.flatMap((q) => [q.en, q.zh]), ...HARD_QUESTIONS.map((q) => q.q)];
    const index = new KnowledgeIndex({ source: store.knowledge, file: indexFile });
    await index.sync();
    const rank: number[] = [];
    const search: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const query of queries) {
        let started = performance.now();
        const plan = planQuery(query, { tokenize: index.tokenizer, vocabulary: index.vocabulary, synonyms: index.synonyms() });
        index.rank(plan.weighted, 5, { candidates: 16 });
        rank.push(performance.now() - started);
        started = performance.now();
        await kb.search(query, { limit: 5 });
        search.push(performance.now() - started);
      }
    }
    await index.close();
    const slugs: Rank = async (query, limit) => (await kb.search(query, { limit })).hits.map((h) => h.slug);
    const golden = { en: (await goldenQuality('en', slugs)).recall5, zh: (await goldenQuality('zh', slugs)).recall5 };
    const hard = (await hardQuality(slugs)).get('all')!.recall5;
    await kb.close();
    const cliMs = process.env.PARLEY_BENCH_NO_CLI ? undefined : cliOverhead(target.provider === 'sqlite' ? target.file : '', dir);
    const allPages = function* () {
      for (let k = 0; k < size; k++) yield k < corpus.length ? corpus[k]! : generatedPage(base, k);
    };
    const cliImportMs =
      process.env.PARLEY_BENCH_NO_CLI || (size > 10_000 && !process.env.PARLEY_BENCH_CLI_IMPORT) ? undefined : cliImport(allPages);
    return {
      pages: size,
      markdownBytes: markdown,
      importMs,
      importCpuMs,
      rebuildMs,
      indexBytes,
      rank: latency(rank),
      search: latency(search),
      golden,
      hard,
      cliMs,
      cliImportMs,
    };
  } finally {
    await kb.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
