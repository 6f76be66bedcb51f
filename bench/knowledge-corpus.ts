// The grammY corpus for the knowledge benchmark, and synthetic variants of its pages for scale runs.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markdownFiles } from '../src/knowledge/importer.ts';
import { pageFromFile } from '../src/knowledge/page-file.ts';
import type { KnowledgePageRecord } from '../src/store/repos/knowledge.ts';

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'corpora', 'grammy-docs');

export async function loadCorpus(): Promise<KnowledgePageRecord[]> {
  const files = await markdownFiles(CORPUS_DIR);
  const now = new Date();
  return Promise.all(
    files.map(async (file, i) => {
      const rel = relative(CORPUS_DIR, file).split('\\').join('/');
      const page = pageFromFile(await readFile(file, 'utf8'), rel);
      return { ...page, id: `p${String(i).padStart(7, '0')}`, source: 'import', revision: 1, hash: '', createdAt: now, updatedAt: now };
    }),
  );
}

// Deterministic pseudo-random numbers, so every run measures the same pages.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

/** Ids sort in page order, as the index builder reads pages by id. */
export function variantId(n: number): string {
  return `v${String(n).padStart(8, '0')}`;
}

/**
 * Page `n` of a synthetic knowledge base of any size: a corpus page whose every 15th word (or Han
 * character) is replaced by one drawn from a Zipf-like vocabulary of 50,000 made-up words (3,000
 * characters), so that the vocabulary and the postings grow with the page count as in real text.
 * Pages keep the size of the corpus pages (about 9.5 KB on average).
 */
export function variantPage(base: KnowledgePageRecord[], n: number): KnowledgePageRecord {
  const page = base[n % base.length]!;
  const round = Math.floor(n / base.length);
  const id = variantId(n);
  if (round === 0) return { ...page, id };
  const next = random(n + 1);
  let word = 0;
  const vary = (text: string) =>
    text.replace(/[A-Za-z]{3,}|[\u4e00-\u9fff]/g, (match) => {
      if (++word % 15 !== 0) return match;
      return match.length > 1 ? `syn${Math.floor(50_000 ** next()).toString(36)}` : String.fromCharCode(0x4e00 + Math.floor(3_000 ** next()));
    });
  return { ...page, id, slug: `${page.slug}-${round}`, title: `${page.title} (${round})`, summary: vary(page.summary), content: vary(page.content) };
}
