// The knowledge base as the CLI, the model's tools and the automatic context see it: pages with
// revisions in the database, and search over them (knowledge-searcher.ts) kept in step with every
// write made here.
import type { Logger } from '../log.ts';
import type {
  KnowledgePageListing,
  KnowledgePageRecord,
  KnowledgeRepo,
  KnowledgeRevisionRecord,
  KnowledgeSaveOptions,
  KnowledgeSaveResult,
} from '../store/repos/knowledge.ts';
import { KnowledgeSearcher } from './knowledge-searcher.ts';
import type { ContextThreshold, ExplainedHit, SearchResult, SectionHit } from './knowledge-search.ts';
import type { PageInput } from './page.ts';
import type { Embedder, EmbeddingSettings } from './search/embedder.ts';
import type { SyncProgress, SyncReport } from './search/knowledge-index.ts';
import type { EmbedProgress, EmbedReport } from './search/semantic.ts';
import type { Tokenizer } from './tokenizer.ts';

export type { ContextThreshold, ExplainedHit, PageHit, SearchResult, SectionHit } from './knowledge-search.ts';

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
  readonly #search: KnowledgeSearcher;

  constructor(options: KnowledgeBaseOptions) {
    this.#repo = options.repo;
    this.#search = new KnowledgeSearcher({ ...options, source: options.repo });
  }

  /** The embedding model semantic search uses, if it is on. */
  get embeddingModel(): string | undefined {
    return this.#search.embeddingModel;
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
    if (!options.dryRun && (result.status === 'created' || result.status === 'updated')) await this.#search.indexWritten([result.page]);
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
      if (written.length) await this.#search.indexWritten(written);
    }
    return results;
  }

  /**
   * Runs `work` (an import of many pages) with the search index written in large segments when it
   * ends, rather than one per batch: much less work for a large import.
   */
  bulk<T>(work: () => Promise<T>): Promise<T> {
    return this.#search.bulk(work);
  }

  /** Deletes a page with its history; false when there was no such page. */
  async remove(slug: string): Promise<boolean> {
    const page = await this.#repo.get(slug);
    if (!page || !(await this.#repo.remove(slug))) return false;
    this.#search.indexRemoved([page.id]);
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

  /** Brings the search index up to date with the database (builds it the first time). */
  sync(onProgress?: (progress: SyncProgress) => void): Promise<SyncReport> {
    return this.#search.sync(onProgress);
  }

  /** Computes the page vectors semantic search lacks; undefined when semantic search is off. */
  embedPending(onProgress?: (progress: EmbedProgress) => void): Promise<EmbedReport | undefined> {
    return this.#search.embedPending(onProgress);
  }

  rebuild(onProgress?: (progress: SyncProgress) => void): Promise<SyncReport> {
    return this.#search.rebuild(onProgress);
  }

  indexStats(): { pages: number; sections: number; bytes: number; file: string; segments: number } {
    return this.#search.indexStats();
  }

  search(query: string, options: { limit?: number } = {}): Promise<SearchResult> {
    return this.#search.search(query, options);
  }

  /** Search with the score broken down by field. */
  explain(query: string, options: { limit?: number } = {}): Promise<SearchResult<ExplainedHit>> {
    return this.#search.explain(query, options);
  }

  /**
   * Sections for the automatic context: from the pages good enough for it (ContextThreshold), in
   * page order, each page's best section first, then second-best ones while `limit` allows.
   */
  relevantSections(query: string, options: { limit: number } & ContextThreshold): Promise<SectionHit[]> {
    return this.#search.relevantSections(query, options);
  }

  /** Stops background embedding (what was computed is kept) and closes the index. */
  close(): Promise<void> {
    return this.#search.close();
  }
}
