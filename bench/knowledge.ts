// `npm run bench -- knowledge`: retrieval quality on the golden questions (English and Chinese,
// Parley's index beside plain FTS5 defaults), the automatic-context threshold against off-topic
// messages, and index build time, size and query latency at 1k, 10k and 100k pages.
// PARLEY_BENCH_KNOWLEDGE_PAGES=1000,10000 picks other sizes (the 100k run takes a few minutes).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseDatabaseUrl } from '../src/config/config.ts';
import { importPages } from '../src/knowledge/importer.ts';
import { knowledgeIndexFile } from '../src/knowledge/index-location.ts';
import { KnowledgeBase } from '../src/knowledge/knowledge-base.ts';
import { KnowledgeIndex, type KnowledgeIndexSource } from '../src/knowledge/search/knowledge-index.ts';
import { planQuery } from '../src/knowledge/search/query.ts';
import { createTokenizer } from '../src/knowledge/tokenizer.ts';
import { openStore } from '../src/store/store.ts';
import type { KnowledgePageRecord } from '../src/store/repos/knowledge.ts';
import { buildBaseline } from './knowledge-baseline.ts';
import { CORPUS_DIR, loadCorpus, variantId, variantPage } from './knowledge-corpus.ts';
import { GOLDEN_QUESTIONS, OFF_TOPIC_MESSAGES } from './knowledge-golden.ts';

type Lang = 'en' | 'zh';
const LANGS: Lang[] = ['en', 'zh'];

interface Quality {
  recall5: number;
  mrr10: number;
}

async function quality(lang: Lang, rank: (query: string) => Promise<string[]> | string[]): Promise<Quality> {
  let found = 0;
  let reciprocal = 0;
  for (const question of GOLDEN_QUESTIONS) {
    const wanted = new Set(question.answers.map((a) => `${lang}/${a}`));
    const position = (await rank(question[lang])).slice(0, 10).findIndex((slug) => wanted.has(slug));
    if (position >= 0 && position < 5) found++;
    if (position >= 0) reciprocal += 1 / (position + 1);
  }
  return { recall5: found / GOLDEN_QUESTIONS.length, mrr10: reciprocal / GOLDEN_QUESTIONS.length };
}

const f3 = (n: number) => n.toFixed(3);
const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : `×${(a / b).toFixed(2)}`);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const mb = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MB`;

async function qualitySection(kb: KnowledgeBase, icuWords: KnowledgeBase, corpus: KnowledgePageRecord[]): Promise<void> {
  const baseline = buildBaseline(corpus);
  console.log(`\nRetrieval quality: ${GOLDEN_QUESTIONS.length} questions per language, all ${corpus.length} pages (en + zh) in one index`);
  console.log('lang  index                          recall@5   MRR@10');
  for (const lang of LANGS) {
    const plain = await quality(lang, (q) => baseline.search(q, 10));
    const ours = await quality(lang, async (q) => (await kb.search(q, { limit: 10 })).hits.map((h) => h.slug));
    console.log(`${lang}    FTS5 defaults (baseline)       ${f3(plain.recall5)}      ${f3(plain.mrr10)}`);
    console.log(`${lang}    Parley (tokeniser + weights)   ${f3(ours.recall5)}      ${f3(ours.mrr10)}    recall ${ratio(ours.recall5, plain.recall5)}, MRR ${ratio(ours.mrr10, plain.mrr10)}`);
    if (lang === 'zh') {
      const words = await quality(lang, async (q) => (await icuWords.search(q, { limit: 10 })).hits.map((h) => h.slug));
      console.log(`${lang}    same, ICU words, not bigrams   ${f3(words.recall5)}      ${f3(words.mrr10)}    recall ${ratio(words.recall5, plain.recall5)}, MRR ${ratio(words.mrr10, plain.mrr10)}`);
    }
  }
  baseline.close();
  for (const [lang, query] of [['zh', GOLDEN_QUESTIONS[0]!.zh], ['en', GOLDEN_QUESTIONS[0]!.en]] as const) {
    const slugs = (await kb.search(query, { limit: 10 })).hits.map((h) => h.slug);
    console.log(`"${query}": ${lang}/plugins/keyboard at rank ${slugs.indexOf(`${lang}/plugins/keyboard`) + 1} (top: ${slugs.slice(0, 3).join(', ')})`);
  }
}

async function thresholdSection(kb: KnowledgeBase): Promise<void> {
  const minScore = loadConfig({}).knowledge.minScore;
  const relevant: number[] = [];
  for (const lang of LANGS) {
    for (const question of GOLDEN_QUESTIONS) {
      const top = (await kb.search(question[lang], { limit: 1 })).hits[0];
      if (top && question.answers.some((a) => `${lang}/${a}` === top.slug)) relevant.push(top.score);
    }
  }
  const offTopic = await Promise.all(OFF_TOPIC_MESSAGES.map(async (m) => (await kb.search(m, { limit: 1 })).hits[0]?.score ?? 0));
  const share = (scores: number[]) => `${scores.filter((s) => s >= minScore).length}/${scores.length}`;
  relevant.sort((a, b) => a - b);
  console.log(`\nAutomatic context threshold (PARLEY_KNOWLEDGE_MIN_SCORE default ${minScore}), top page score:`);
  console.log(`  right page first: min ${relevant[0]?.toFixed(1)}, p10 ${percentile(relevant, 0.1).toFixed(1)}, median ${percentile(relevant, 0.5).toFixed(1)}; at or above the threshold: ${share(relevant)}`);
  console.log(`  off-topic messages: ${offTopic.map((s) => s.toFixed(1)).join(', ')}; at or above the threshold: ${share(offTopic)}`);
}

function syntheticSource(base: KnowledgePageRecord[], count: number): KnowledgeIndexSource {
  const page = (id: string) => variantPage(base, Number(id.slice(1)));
  return {
    stamp: async () => ({ pages: count, lastRevisionId: count }),
    changedSince: async () => ({ pageIds: [], lastRevisionId: count }),
    getByIds: async (ids) => ids.map(page),
    versions: async () => new Map(Array.from({ length: count }, (_, n) => [variantId(n), 1])),
    batchAfter: async (after, size) => {
      const start = after ? Number(after.slice(1)) + 1 : 0;
      return Array.from({ length: Math.max(0, Math.min(count, start + size) - start) }, (_, i) => variantPage(base, start + i));
    },
  };
}

async function scaleSection(corpus: KnowledgePageRecord[], sizes: number[]): Promise<void> {
  const queries = GOLDEN_QUESTIONS.flatMap((q) => [q.en, q.zh]);
  console.log(`\nIndex at scale: corpus pages and variants of them (~${Math.round(corpus.reduce((n, p) => n + p.content.length, 0) / corpus.length / 1024)} KB each); latency over ${queries.length} golden queries × 3 (ranking, without the snippet read)`);
  console.log('pages      sections   build      per 1k pages   index on disk   RSS growth   p50 ms   p99 ms');
  let first: { p50: number } | undefined;
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'parley-bench-index-'));
    const rssBefore = process.memoryUsage().rss;
    const index = new KnowledgeIndex({ source: syntheticSource(corpus, size), file: join(dir, 'index.db') });
    const started = performance.now();
    await index.sync();
    const buildMs = performance.now() - started;
    const stats = index.stats();
    const rss = process.memoryUsage().rss - rssBefore;
    const latencies: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const query of queries) {
        const t = performance.now();
        index.rank(planQuery(query, { tokenize: index.tokenizer, vocabulary: index.vocabulary, synonyms: index.synonyms() }).weighted, 5, { candidates: 32 });
        latencies.push(performance.now() - t);
      }
    }
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    first ??= { p50 };
    console.log(
      `${String(size).padEnd(10)} ${String(stats.sections).padEnd(10)} ${`${(buildMs / 1000).toFixed(1)} s`.padEnd(10)} ${`${(buildMs / size).toFixed(2)} s`.padEnd(14)} ${mb(stats.bytes).padEnd(15)} ${mb(Math.max(0, rss)).padEnd(12)} ${p50.toFixed(2).padEnd(8)} ${p99.toFixed(2)}   (p50 ${ratio(p50, first.p50)} of the smallest)`,
    );
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
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
    console.log(`Imported ${report.counts.created} corpus pages into a fresh database in ${((performance.now() - started) / 1000).toFixed(1)} s (failed: ${report.counts.failed})`);
    const icuWords = new KnowledgeBase({ repo: store.knowledge, indexFile: join(dir, 'icu-words-index.db'), tokenizer: createTokenizer({ cjk: 'words' }) });
    await qualitySection(kb, icuWords, corpus);
    await icuWords.close();
    await thresholdSection(kb);
    const sizes = (process.env.PARLEY_BENCH_KNOWLEDGE_PAGES ?? '1000,10000,100000').split(',').map(Number).filter((n) => n > 0);
    await scaleSection(corpus, sizes);
  } finally {
    await kb.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
