// Search over the knowledge pages of a database, for anything that reads them: the search index
// kept in step with the pages, the searches themselves, and (when an embedding model is
// configured) the page vectors, computed in the background after changes. It needs only to read
// pages, so `parley knowledge search` can run it on a light read-only connection.
import type { Logger } from '../log.ts';
import type { KnowledgePageRecord, KnowledgeRepo } from '../store/repos/knowledge.ts';
import {
  explainPages,
  relevantSections,
  searchPages,
  type ContextThreshold,
  type ExplainedHit,
  type SearchContext,
  type SearchResult,
  type SectionHit,
} from './knowledge-search.ts';
import { createEmbedder, type Embedder, type EmbeddingSettings } from './search/embedder.ts';
import { KnowledgeIndex, type SyncProgress, type SyncReport } from './search/knowledge-index.ts';
import { SemanticSearch, type EmbedProgress, type EmbedReport } from './search/semantic.ts';
import { defaultTokenizer, type Tokenizer } from './tokenizer.ts';

/** What search reads of the pages. */
export type KnowledgeSource = Pick<KnowledgeRepo, 'getByIds' | 'count' | 'stamp' | 'changedSince' | 'batchAfter' | 'versions'>;

export interface KnowledgeSearcherOptions {
  source: KnowledgeSource;
  /** Where the search index lives (see knowledgeIndexFile). */
  indexFile: string;
  log?: Logger;
  /** Semantic search: the embeddings endpoint (or a ready embedder); off when absent. */
  embeddings?: EmbeddingSettings | Embedder;
  /** Only to compare tokenisers (the benchmark). */
  tokenizer?: Tokenizer;
}

/**
 * For the automatic context (searched on every turn), a knowledge base found empty is counted
 * again after this long, not on every turn. Explicit searches always look; pages written through
 * this process open the index at once.
 */
const EMPTY_RECHECK_MS = 5_000;

export class KnowledgeSearcher {
  readonly #source: KnowledgeSource;
  readonly #indexFile: string;
  readonly #log: Logger | undefined;
  readonly #tokenizer: Tokenizer;
  readonly #semantic: SemanticSearch | undefined;
  #index: KnowledgeIndex | undefined;
  #embedding: Promise<EmbedReport> | undefined;
  #bulk = false;
  /** When the pages were last counted and found to be none. */
  #emptyAt: number | undefined;
  readonly #stopEmbedding = new AbortController();

  constructor(options: KnowledgeSearcherOptions) {
    this.#source = options.source;
    this.#indexFile = options.indexFile;
    this.#log = options.log;
    this.#tokenizer = options.tokenizer ?? defaultTokenizer;
    const embeddings = options.embeddings;
    if (embeddings) {
      const embedder = 'embed' in embeddings ? embeddings : createEmbedder(embeddings);
      this.#semantic = new SemanticSearch(embedder, this.#source, this.#log);
    }
  }

  /** The embedding model semantic search uses, if it is on. */
  get embeddingModel(): string | undefined {
    return this.#semantic?.model;
  }

  #openIndex(): KnowledgeIndex {
    this.#index ??= new KnowledgeIndex({
      source: this.#source,
      file: this.#indexFile,
      tokenizer: this.#tokenizer,
      onWorkerFailure: (error) =>
        this.#log?.warn({ err: error }, 'knowledge index workers failed; indexing on the main thread instead (slower)'),
    });
    return this.#index;
  }

  /** Indexes pages just written (as one segment, or into a bulk), then computes their vectors in the background. */
  async indexWritten(pages: KnowledgePageRecord[]): Promise<void> {
    // The page is saved either way: a failed index update is repaired by the next sync.
    try {
      await this.#openIndex().indexPages(pages);
    } catch (error) {
      this.#log?.warn({ err: error }, 'could not update the knowledge index after a write; the next search will catch up');
    }
    if (!this.#bulk) this.#embedInBackground();
  }

  /** Runs `work` (an import) with its writes indexed in large segments, written when it ends. */
  async bulk<T>(work: () => Promise<T>): Promise<T> {
    const index = this.#openIndex();
    index.startBulk();
    this.#bulk = true;
    try {
      return await work();
    } finally {
      this.#bulk = false;
      try {
        await index.endBulk();
      } catch (error) {
        this.#log?.warn({ err: error }, 'could not update the knowledge index after an import; the next search will catch up');
      }
      this.#embedInBackground();
    }
  }

  indexRemoved(pageIds: string[]): void {
    try {
      this.#openIndex().removePages(pageIds);
    } catch (error) {
      this.#log?.warn({ err: error }, 'could not update the knowledge index after a delete; the next search will catch up');
    }
  }

  /** Brings the search index up to date with the database (builds it the first time). */
  async sync(onProgress?: (progress: SyncProgress) => void): Promise<SyncReport> {
    return (await this.#ready(onProgress)).report;
  }

  /**
   * Computes the page vectors semantic search lacks (all pages the first time, then the changed
   * ones), in batches. Writes start this in the background; the CLI awaits it after an import.
   */
  async embedPending(onProgress?: (progress: EmbedProgress) => void): Promise<EmbedReport | undefined> {
    const semantic = this.#semantic;
    if (!semantic) return undefined;
    await this.#embedding?.catch(() => undefined);
    if (!this.#index && (await this.#source.count()) === 0) return { embedded: 0, missing: 0 };
    return semantic.embedPending(this.#openIndex(), onProgress, this.#stopEmbedding.signal);
  }

  #embedInBackground(): void {
    if (!this.#semantic || this.#embedding) return;
    this.#embedding = this.embedPending()
      .then((report) => report ?? { embedded: 0, missing: 0 })
      .catch((error: unknown) => {
        if (!this.#stopEmbedding.signal.aborted)
          this.#log?.warn(
            { err: error },
            'could not compute page embeddings; semantic search covers fewer pages until a later write retries',
          );
        return { embedded: 0, missing: -1 };
      })
      .finally(() => (this.#embedding = undefined));
  }

  // Until the first page exists there is no index file to open: apps and tests that never use
  // knowledge leave nothing behind.
  async #ready(onProgress?: (progress: SyncProgress) => void): Promise<{ index?: KnowledgeIndex; report: SyncReport }> {
    if (!this.#index && (await this.#source.count()) === 0) {
      this.#emptyAt = Date.now();
      return { report: { indexed: 0, removed: 0, rebuilt: false, ms: 0 } };
    }
    const index = this.#openIndex();
    const report = await index.sync(onProgress);
    // Pages another process wrote: their vectors are computed here (that process may have none).
    if (report.indexed > 0) this.#embedInBackground();
    return { index, report };
  }

  rebuild(onProgress?: (progress: SyncProgress) => void): Promise<SyncReport> {
    return this.#openIndex().rebuild(onProgress);
  }

  indexStats(): { pages: number; sections: number; bytes: number; file: string; segments: number } {
    return this.#openIndex().stats();
  }

  async #context(emptyMayLag = false): Promise<SearchContext> {
    const emptyLately = emptyMayLag && !this.#index && this.#emptyAt !== undefined && Date.now() - this.#emptyAt < EMPTY_RECHECK_MS;
    const { index } = emptyLately ? {} : await this.#ready();
    return { repo: this.#source, tokenizer: this.#tokenizer, index, ...(this.#semantic ? { semantic: this.#semantic } : {}) };
  }

  async search(query: string, options: { limit?: number } = {}): Promise<SearchResult> {
    return searchPages(await this.#context(), query, options.limit ?? 5);
  }

  /** Search with the score broken down by field. */
  async explain(query: string, options: { limit?: number } = {}): Promise<SearchResult<ExplainedHit>> {
    return explainPages(await this.#context(), query, options.limit ?? 5);
  }

  /**
   * Sections for the automatic context: from the pages good enough for it (ContextThreshold), in
   * page order, each page's best section first, then second-best ones while `limit` allows.
   */
  async relevantSections(query: string, options: { limit: number } & ContextThreshold): Promise<SectionHit[]> {
    return relevantSections(await this.#context(true), query, options);
  }

  /** Stops background embedding (what was computed is kept) and closes the index. */
  async close(): Promise<void> {
    this.#stopEmbedding.abort();
    await this.#embedding;
    const index = this.#index;
    this.#index = undefined;
    await index?.close();
  }
}
