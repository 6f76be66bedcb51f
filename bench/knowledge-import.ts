// `node --import tsx bench/knowledge-import.ts [pages]`: the store's part of a knowledge import,
// alone: `store.knowledge.saveMany` in batches of 200 (as `parley knowledge import` saves), into a
// fresh database, of the corpus plus generated pages (10,000 by default; generated ahead, not
// counted). Three passes: all pages new, the same pages again (all unchanged), every page changed
// (all updated); wall time, and CPU time of all threads of this process (less sensitive to other
// load on the machine). Medians of 3 fresh databases (PARLEY_BENCH_ROUNDS), on SQLite, and on
// PostgreSQL when PARLEY_TEST_POSTGRES_URL names a server (PARLEY_BENCH_PROVIDER=sqlite|postgresql:
// one of them). No search index: that part does not touch the database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseTarget, parseDatabaseUrl } from '../src/config/config.ts';
import type { KnowledgePageFields } from '../src/store/repos/knowledge.ts';
import { openStore } from '../src/store/store.ts';
import { loadCorpus } from './knowledge-corpus.ts';
import { generatedPage, generatorBase } from './knowledge-generator.ts';
import { tempPostgres } from './hotpath/postgres.ts';

const BATCH = 200;
const ROUNDS = Number(process.env.PARLEY_BENCH_ROUNDS ?? 3);
const PASSES = ['created', 'unchanged', 'updated'] as const;

/** A fresh empty database of the provider, and its removal. */
async function freshTarget(provider: 'sqlite' | 'postgresql'): Promise<{ target: DatabaseTarget; remove(): Promise<void> }> {
  if (provider === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'parley-bench-import-'));
    return {
      target: parseDatabaseUrl(`file:${join(dir, 'parley.db')}`),
      remove: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const database = await tempPostgres();
  if (!database) throw new Error('PostgreSQL does not answer at PARLEY_TEST_POSTGRES_URL');
  return { target: parseDatabaseUrl(database.url), remove: () => database.drop() };
}

type Times = Record<(typeof PASSES)[number], { wall: number; cpu: number }>;

async function round(provider: 'sqlite' | 'postgresql', pages: KnowledgePageFields[]): Promise<Times> {
  const { target, remove } = await freshTarget(provider);
  const store = await openStore(target);
  try {
    const times: Times = { created: { wall: 0, cpu: 0 }, unchanged: { wall: 0, cpu: 0 }, updated: { wall: 0, cpu: 0 } };
    for (const pass of PASSES) {
      const input = pass === 'updated' ? pages.map((page) => ({ ...page, summary: `${page.summary} (2)` })) : pages;
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      for (let n = 0; n < input.length; n += BATCH) {
        const results = await store.knowledge.saveMany(input.slice(n, n + BATCH), { source: 'import' });
        if (results.some((r) => r.status !== pass)) throw new Error(`expected every page ${pass}`);
      }
      const cpu = process.cpuUsage(cpuStarted);
      times[pass] = { wall: performance.now() - started, cpu: (cpu.user + cpu.system) / 1000 };
    }
    return times;
  } finally {
    await store.close();
    await remove();
  }
}

const size = Number(process.argv[2] ?? 10_000);
const corpus = await loadCorpus();
const base = generatorBase(corpus);
const pages: KnowledgePageFields[] = Array.from({ length: size }, (_, k) => {
  const page = k < corpus.length ? corpus[k]! : generatedPage(base, k);
  return { slug: page.slug, title: page.title, summary: page.summary, content: page.content, tags: page.tags, references: page.references };
});
const providers = (process.env.PARLEY_TEST_POSTGRES_URL ? (['sqlite', 'postgresql'] as const) : (['sqlite'] as const)).filter(
  (provider) => !process.env.PARLEY_BENCH_PROVIDER || provider === process.env.PARLEY_BENCH_PROVIDER,
);
console.log(`store.knowledge.saveMany of ${size} pages in batches of ${BATCH}, medians of ${ROUNDS} fresh databases:`);
for (const provider of providers) {
  const rounds: Times[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await round(provider, pages));
  const median = (pass: (typeof PASSES)[number], kind: 'wall' | 'cpu') =>
    rounds.map((t) => t[pass][kind]).sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]! / 1000;
  const figures = PASSES.map(
    (pass) =>
      `${pass} ${median(pass, 'wall').toFixed(2)} s (${Math.round(size / median(pass, 'wall'))}/s, CPU ${median(pass, 'cpu').toFixed(2)} s)`,
  );
  console.log(`  ${provider.padEnd(10)} ${figures.join('   ')}`);
}
