// The knowledge base as the CLI, the model's tools and the automatic context see it: pages with
// revisions in the database, a search index kept in step with them, and (when an embedding model
// is configured) page vectors computed in the background after writes.
import type { Logger } from '../log.ts';
import type {
  KnowledgePageListing,
  KnowledgePageRecord,
  KnowledgeRepo,
  KnowledgeRevisionRecord,
  KnowledgeSaveOptions,
  KnowledgeSaveResult,
} from '../store/repos/knowledge.ts';
import {
  explainPages,
  relevantSections,
  searchPages,
  type ExplainedHit,
  type SearchContext,
  type SearchResult,
  type SectionHit,
} from './knowledge-search.ts';
import type { PageInput } from './page.ts';
import { createEmbedder, type Embedder, type EmbeddingSettings } from './search/embedder.ts';
import { KnowledgeIndex, type SyncProgress, type SyncReport } from './search/knowledge-index.ts';
import { SemanticSearch, type EmbedProgress, type EmbedReport } from './search/semantic.ts';
import { defaultTokenizer, type Tokenizer } from './tokenizer.ts';

export type { ExplainedHit, PageHit, SearchResult, SectionHit } from './knowledge-search.ts';

export interface KnowledgeBaseOptions {
  repo: KnowledgeRepo;
  /** Where the search index lives (see knowledgeIndexFile). */
  indexFile: string;
  log?: Logger;
  /** Semantic search: the embeddings endpoint (or a ready embedder); off when absent. */
  embeddings?: EmbeddingSettings | Embedder;
  /** Only to compare tokenisers (the benchmark). */
  tokenizer?: Tokenizer;
}

export class KnowledgeBase {
  readonly #repo: KnowledgeRepo;
  readonly #indexFile: string;
  readonly #log: Logger | undefined;
  readonly #tokenizer: Tokenizer;
  readonly #semantic: SemanticSearch | undefined;
  #index: KnowledgeIndex | undefined;
  #embedding: Promise<EmbedReport> | undefined;
  readonly #stopEmbedding = new AbortController();

  constructor(options: KnowledgeBaseOptions) {
    this.#repo = options.repo;
    this.#indexFile = options.indexFile;
    this.#log = options.log;
    this.#tokenizer = options.tokenizer ?? defaultTokenizer;
    const embeddings = options.embeddings;
    if (embeddings) {
      const embedder = 'embed' in embeddings ? embeddings : createEmbedder(embeddings);
      this.#semantic = new SemanticSearch(embedder, this.#repo, this.#log);
    }
  }

  /** The embedding model semantic search uses, if it is on. */
  get embeddingModel(): string | undefined {
    return this.#semantic?.model;
  }

  #openIndex(): KnowledgeIndex {
    this.#index ??= new KnowledgeIndex({ source: this.#repo, file: this.#indexFile, tokenizer: this.#tokenizer });
    return this.#index;
  }

  get(slug: string): Promise<KnowledgePageRecord | undefined> {
    return this.#repo.get(slug);
  }

  list(options: { limit?: number; offset?: number; tag?: string; prefix?: string } = {}): Promise<KnowledgePageListing[]> {
    return this.#repo.list(options);
  }

  count(): Promise<number> {
    return this.#repo.count();
  }

  /** Every page with its content, in batches (for export). */
  async *allPages(batchSize = 200): AsyncGenerator<KnowledgePageRecord> {
    let after = '';
    for (;;) {
      const batch = await this.#repo.batchAfter(after, batchSize);
      if (batch.length === 0) return;
      yield* batch;
      after = batch.at(-1)!.id;
    }
  }

  history(slug: string): Promise<KnowledgeRevisionRecord[] | undefined> {
    return this.#repo.history(slug);
  }

  revision(slug: string, revision: number): Promise<KnowledgeRevisionRecord | undefined> {
    return this.#repo.revision(slug, revision);
  }

  /** Creates or updates a page (a new revision when anything changed) and indexes it. */
  async save(input: PageInput, options: KnowledgeSaveOptions): Promise<KnowledgeSaveResult> {
    const result = await this.#repo.save(input, options);
    if (!options.dryRun && (result.status === 'created' || result.status === 'updated')) this.#indexWritten([result.page]);
    return result;
  }

  /**
   * Saves many pages in one transaction (an import's batch: all or none) and indexes the changed
   * ones as one segment. A page's own `note` (the file it came from) wins over the options' note.
   */
  async saveMany(inputs: (PageInput & { note?: string })[], options: KnowledgeSaveOptions): Promise<KnowledgeSaveResult[]> {
    const results = await this.#repo.saveMany(inputs, options);
    if (!options.dryRun) {
      const written = results.flatMap((r) => (r.status === 'created' || r.status === 'updated' ? [r.page] : []));
      if (written.length) this.#indexWritten(written);
    }
    return results;
  }

  #indexWritten(pages: KnowledgePageRecord[]): void {
    this.#afterWrite(() => this.#openIndex().indexPages(pages));
    this.#embedInBackground();
  }

  /** Deletes a page with its history; false when there was no such page. */
  async remove(slug: string): Promise<boolean> {
    const page = await this.#repo.get(slug);
    if (!page || !(await this.#repo.remove(slug))) return false;
    this.#afterWrite(() => this.#openIndex().removePages([page.id]));
    return true;
  }

  /**
   * Makes revision `revision` the page's content again, as a new revision (history is kept).
   * Undefined when the page or the revision does not exist.
   */
  async revert(slug: string, revision: number, options: Omit<KnowledgeSaveOptions, 'note'>): Promise<KnowledgeSaveResult | undefined> {
    const old = await this.#repo.revision(slug, revision);
    if (!old) return undefined;
    const { title, summary, content, tags, references } = old;
    return this.save({ slug, title, summary, content, tags, references }, { ...options, note: `revert to r${revision}` });
  }

  // The page is saved either way: a failed index update is repaired by the next sync.
  #afterWrite(update: () => void): void {
    try {
      update();
    } catch (error) {
      this.#log?.warn({ err: error }, 'could not update the knowledge index after a write; the next search will catch up');
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
    if (!this.#index && (await this.#repo.count()) === 0) return { embedded: 0, missing: 0 };
    return semantic.embedPending(this.#openIndex(), onProgress, this.#stopEmbedding.signal);
  }

  #embedInBackground(): void {
    if (!this.#semantic || this.#embedding) return;
    this.#embedding = this.embedPending()
      .then((report) => report ?? { embedded: 0, missing: 0 })
      .catch((error: unknown) => {
        if (!this.#stopEmbedding.signal.aborted) this.#log?.warn({ err: error }, 'could not compute page embeddings; semantic search covers fewer pages until a later write retries');
        return { embedded: 0, missing: -1 };
      })
      .finally(() => (this.#embedding = undefined));
  }

  // Until the first page exists there is no index file to open: apps and tests that never use
  // knowledge leave nothing behind.
  async #ready(onProgress?: (progress: SyncProgress) => void): Promise<{ index?: KnowledgeIndex; report: SyncReport }> {
    if (!this.#index && (await this.#repo.count()) === 0) return { report: { indexed: 0, removed: 0, rebuilt: false, ms: 0 } };
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

  async #context(): Promise<SearchContext> {
    const { index } = await this.#ready();
    return { repo: this.#repo, tokenizer: this.#tokenizer, index, ...(this.#semantic ? { semantic: this.#semantic } : {}) };
  }

  async search(query: string, options: { limit?: number } = {}): Promise<SearchResult> {
    return searchPages(await this.#context(), query, options.limit ?? 5);
  }

  /** Search with the score broken down by field. */
  async explain(query: string, options: { limit?: number } = {}): Promise<SearchResult<ExplainedHit>> {
    return explainPages(await this.#context(), query, options.limit ?? 5);
  }

  /**
   * Sections for the automatic context: from the pages scoring at least `minScore`, in page order,
   * each page's best section first, then second-best ones while `limit` allows.
   */
  async relevantSections(query: string, options: { limit: number; minScore: number }): Promise<SectionHit[]> {
    return relevantSections(await this.#context(), query, options);
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
