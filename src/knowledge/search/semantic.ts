// Optional semantic retrieval (OPENAI_EMBEDDING_MODEL): page vectors are computed in batches after
// pages are written or imported (never in a search), stored in the index file and reused while a
// page's text is unchanged; a search embeds the question once and fuses the closest pages with
// the keyword ranking by reciprocal rank fusion. Keyword search never depends on it: without a
// vector, or when the server fails, the keyword ranking is the answer.
import type { Logger } from '../../log.ts';
import type { KnowledgeRepo } from '../../store/repos/knowledge.ts';
import type { Embedder } from './embedder.ts';
import type { KnowledgeIndex } from './knowledge-index.ts';
import { embeddingText, textHash, type SemanticHit } from './vectors.ts';

/** Texts per embeddings request. */
export const EMBEDDING_BATCH = 64;
/** A question's embedding is given up after this long (the keyword results are used alone). */
const QUERY_TIMEOUT_MS = 10_000;
/** Reciprocal rank fusion constant (the usual 60). */
const RRF_K = 60;
const QUERY_CACHE = 200;

export interface EmbedProgress {
  done: number;
  total: number;
}

export interface EmbedReport {
  embedded: number;
  /** Pages still without a vector (the server failed; the next write or sync tries again). */
  missing: number;
}

export class SemanticSearch {
  readonly #embedder: Embedder;
  readonly #repo: Pick<KnowledgeRepo, 'getByIds'>;
  readonly #log: Logger | undefined;
  readonly #queries = new Map<string, Float32Array>();
  #failing = false;

  constructor(embedder: Embedder, repo: Pick<KnowledgeRepo, 'getByIds'>, log?: Logger) {
    this.#embedder = embedder;
    this.#repo = repo;
    this.#log = log;
  }

  get model(): string {
    return this.#embedder.model;
  }

  /** Computes the vectors the index's pages lack, EMBEDDING_BATCH texts per request. */
  async embedPending(index: KnowledgeIndex, onProgress?: (progress: EmbedProgress) => void, signal?: AbortSignal): Promise<EmbedReport> {
    const model = this.#embedder.model;
    const start = index.vectors.coverage(model);
    const total = start.pages - start.embedded;
    let embedded = 0;
    const tried = new Set<string>();
    onProgress?.({ done: 0, total });
    while (!signal?.aborted) {
      const wanted = index.vectors.missing(model, EMBEDDING_BATCH * 4).filter((p) => !tried.has(p.id));
      if (wanted.length === 0) break;
      for (const { id } of wanted) tried.add(id);
      const pages = await this.#repo.getByIds(wanted.map((p) => p.id));
      const texts = new Map<string, string>();
      for (const page of pages) {
        const text = embeddingText(page);
        texts.set(textHash(text), text);
      }
      const items = [...texts];
      for (let i = 0; i < items.length; i += EMBEDDING_BATCH) {
        const batch = items.slice(i, i + EMBEDDING_BATCH);
        const vectors = await this.#embedder.embed(
          batch.map(([, text]) => text),
          { signal },
        );
        index.vectors.store(
          model,
          batch.map(([hash], k) => ({ hash, vector: vectors[k]! })),
        );
        embedded += batch.length;
        onProgress?.({ done: Math.min(embedded, total), total: Math.max(total, embedded) });
      }
    }
    this.#failing = false;
    const end = index.vectors.coverage(model);
    return { embedded, missing: end.pages - end.embedded };
  }

  /** The pages closest to `query`, or [] when the question cannot be embedded now (logged once per outage). */
  async search(index: KnowledgeIndex, query: string, k: number): Promise<SemanticHit[]> {
    let vector = this.#queries.get(query);
    if (!vector) {
      try {
        // One attempt: a search does not wait for a struggling server, keyword results are ready.
        [vector] = await this.#embedder.embed([query], { signal: AbortSignal.timeout(QUERY_TIMEOUT_MS), retries: 0 });
      } catch (error) {
        if (!this.#failing)
          this.#log?.warn({ err: error }, 'semantic search unavailable (embeddings request failed); using keyword search alone');
        this.#failing = true;
        return [];
      }
      this.#failing = false;
      if (this.#queries.size >= QUERY_CACHE) this.#queries.delete(this.#queries.keys().next().value!);
      this.#queries.set(query, vector!);
    }
    return index.vectors.search(this.#embedder.model, vector!, k);
  }
}

/** Reciprocal rank fusion of two rankings of keys: best first. */
export function fuse<K>(keyword: K[], semantic: K[]): K[] {
  const scores = new Map<K, number>();
  for (const list of [keyword, semantic]) {
    for (const [rank, key] of list.entries()) scores.set(key, (scores.get(key) ?? 0) + 1 / (RRF_K + rank + 1));
  }
  const keywordRank = new Map(keyword.map((key, rank) => [key, rank]));
  return [...scores.keys()].sort(
    (a, b) => scores.get(b)! - scores.get(a)! || (keywordRank.get(a) ?? Infinity) - (keywordRank.get(b) ?? Infinity),
  );
}
