// `npm run bench -- knowledge`: retrieval quality (the golden questions per language, the hard
// development set per kind, Parley beside plain FTS5 defaults), the automatic-context threshold
// against off-topic messages, and at 1k, 10k and 100k pages (the corpus plus generated pages,
// see knowledge-generator.ts): import time into a real SQLite database, index rebuild time, index
// size beside the Markdown, search latency (p50/p95), quality at that size, and the wall time of
// `parley knowledge search` above a bare `node -e 0`.
// PARLEY_BENCH_KNOWLEDGE_PAGES=1000,10000 picks other sizes (100k takes a few minutes).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDatabaseUrl } from '../src/config/config.ts';
import { importPages } from '../src/knowledge/importer.ts';
import { knowledgeIndexFile } from '../src/knowledge/index-location.ts';
import { KnowledgeBase } from '../src/knowledge/knowledge-base.ts';
import { createTokenizer } from '../src/knowledge/tokenizer.ts';
import { openStore } from '../src/store/store.ts';
import type { KnowledgePageRecord } from '../src/store/repos/knowledge.ts';
import { buildBaseline } from './knowledge-baseline.ts';
import { CORPUS_DIR, loadCorpus } from './knowledge-corpus.ts';
import { HARD_KINDS } from './knowledge-hard.ts';
import { goldenQuality, hardQuality, type Quality, type Rank } from './knowledge-quality.ts';
import { CLI_RUNS, measureScale, type ScaleFigures } from './knowledge-scale.ts';
import { thresholdSection } from './knowledge-threshold.ts';

const f3 = (n: number) => n.toFixed(3);

function row(label: string, q: Quality, width = 34): string {
  return `${label.padEnd(width)} ${f3(q.recall5)}      ${f3(q.mrr10)}   (${q.questions} questions)`;
}

const slugsOf =
  (kb: KnowledgeBase): Rank =>
  async (query, limit) =>
    (await kb.search(query, { limit })).hits.map((h) => h.slug);

async function qualitySection(kb: KnowledgeBase, icuWords: KnowledgeBase, corpus: KnowledgePageRecord[]): Promise<void> {
  const baseline = buildBaseline(corpus);
  const plain: Rank = (query, limit) => baseline.search(query, limit);
  console.log(`\nRetrieval quality over the ${corpus.length} grammY pages (en + zh in one index)`);
  console.log('set                                recall@5   MRR@10');
  for (const lang of ['en', 'zh'] as const) {
    console.log(row(`golden ${lang}: FTS5 defaults`, await goldenQuality(lang, plain)));
    console.log(row(`golden ${lang}: Parley`, await goldenQuality(lang, slugsOf(kb))));
  }
  console.log(row('golden zh: Parley, ICU words', await goldenQuality('zh', slugsOf(icuWords))));
  const hard = await hardQuality(slugsOf(kb));
  const hardPlain = await hardQuality(plain);
  for (const kind of [...HARD_KINDS, 'all']) {
    console.log(row(`hard ${kind}: FTS5 defaults`, hardPlain.get(kind)!));
    console.log(row(`hard ${kind}: Parley`, hard.get(kind)!));
  }
  if (process.env.PARLEY_BENCH_MISSES)
    for (const [kind, q] of hard) if (kind !== 'all') for (const miss of q.misses) console.log(`  missed (${kind}): ${miss}`);
  baseline.close();
}

function scaleTable(figures: ScaleFigures[]): void {
  const mb = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  console.log(
    '\npages     Markdown   import (DB+index)                rebuild   index on disk        search p50/p95/p99 ms   with snippets p50/p95   golden r@5 en/zh   hard r@5   CLI search',
  );
  for (const f of figures) {
    console.log(
      [
        String(f.pages).padEnd(9),
        mb(f.markdownBytes).padEnd(10),
        `${(f.importMs / 1000).toFixed(1)} s (${Math.round(f.pages / (f.importMs / 1000))}/s, CPU ${(f.importCpuMs / 1000).toFixed(0)} s)`.padEnd(
          32,
        ),
        `${(f.rebuildMs / 1000).toFixed(1)} s`.padEnd(9),
        `${mb(f.indexBytes)} ×${(f.indexBytes / f.markdownBytes).toFixed(2)}`.padEnd(20),
        `${f.rank.p50.toFixed(2)} / ${f.rank.p95.toFixed(2)} / ${f.rank.p99.toFixed(2)}`.padEnd(23),
        `${f.search.p50.toFixed(2)} / ${f.search.p95.toFixed(2)}`.padEnd(23),
        `${f3(f.golden.en)} / ${f3(f.golden.zh)}`.padEnd(18),
        f3(f.hard).padEnd(10),
        f.cliMs === undefined ? '' : `${Math.round(f.cliMs)} ms above node -e 0 (medians of ${CLI_RUNS})`,
        f.cliImportMs === undefined ? '' : `; \`parley knowledge import\` of the pages as files: ${(f.cliImportMs / 1000).toFixed(1)} s`,
      ].join(' '),
    );
  }
  console.log(
    '  import: generated pages saved through KnowledgeBase.saveMany in batches of 200 in a bulk (the CLI import path minus reading files), generated ahead (not counted);',
  );
  console.log(
    `  CPU: all threads of the process during the import (${availableParallelism()} processors here; load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} at the end: other work on the machine shows in wall times);`,
  );
  console.log(
    '  rebuild: `parley knowledge reindex` from that database; search: query planning + ranking (as the issue measured); with snippets: KnowledgeBase.search incl. reading the pages;',
  );
  console.log(
    '  latency over the golden and hard questions (138) × 3 rounds; quality: the same questions answered among all pages of that size.',
  );
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-knowledge-'));
  const target = parseDatabaseUrl(`file:${join(dir, 'parley.db')}`);
  const store = await openStore(target);
  const kb = new KnowledgeBase({ repo: store.knowledge, indexFile: knowledgeIndexFile(target) });
  try {
    const corpus = await loadCorpus();
    const started = performance.now();
    const report = await importPages(kb, CORPUS_DIR);
    console.log(
      `Imported ${report.counts.created} corpus pages into a fresh database in ${((performance.now() - started) / 1000).toFixed(1)} s (failed: ${report.counts.failed})`,
    );
    const icuWords = new KnowledgeBase({
      repo: store.knowledge,
      indexFile: join(dir, 'icu-words-index.db'),
      tokenizer: createTokenizer({ cjk: 'words' }),
    });
    await qualitySection(kb, icuWords, corpus);
    await icuWords.close();
    await thresholdSection(kb);
    const sizes = (process.env.PARLEY_BENCH_KNOWLEDGE_PAGES ?? '1000,10000,100000')
      .split(',')
      .map(Number)
      .filter((n) => n > 0);
    const figures: ScaleFigures[] = [];
    console.log(`\nAt scale: the ${corpus.length} corpus pages plus generated ones (sizes ${sizes.join(', ')})`);
    for (const size of sizes) {
      figures.push(await measureScale(corpus, size));
      console.log(`  ${size} pages measured`);
    }
    scaleTable(figures);
  } finally {
    await kb.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
