// Keeps the search index file in step with the pages in the database and answers queries.
// Writes made through this process are indexed at once; writes made by other processes (the CLI
// while the bot runs, other bot processes) are picked up before each search by comparing a cheap
// stamp of the database (page count, newest revision id) with what the index has seen. A full
// reconciliation runs when the counts disagree and every few minutes, which also covers PostgreSQL
// sequences committing out of order.
import type { KnowledgePageRecord, KnowledgeRepo } from '../../store/repos/knowledge.ts';
import { defaultTokenizer, type Tokenizer } from '../tokenizer.ts';
import { firstPass, resolveTerms, type FirstPassStats, type WeightedTerm } from './first-pass.ts';
import type { VocabularySource } from './fuzzy.ts';
import { SearchIndexFile } from './index-file.ts';
import { IndexWriter } from './index-writer.ts';
import { rankSections, type RankedPage } from './second-pass.ts';
import { BUILTIN_SYNONYMS, parseSynonyms, SynonymTable } from './synonyms.ts';
import { VectorIndex } from './vectors.ts';

const BATCH = 200;

export type KnowledgeIndexSource = Pick<KnowledgeRepo, 'stamp' | 'changedSince' | 'getByIds' | 'batchAfter' | 'versions'>;

export interface SyncProgress {
  phase: 'rebuild' | 'update';
  done: number;
  total: number;
}

export interface SyncReport {
  indexed: number;
  removed: number;
  rebuilt: boolean;
  ms: number;
}

export interface KnowledgeIndexOptions {
  source: KnowledgeIndexSource;
  file: string;
  reconcileEveryMs?: number;
  now?: () => number;
  /** Only to compare tokenisers (the benchmark); an index must be built and queried with one. */
  tokenizer?: Tokenizer;
  /** Large builds and imports prepare pages on worker threads (default true; with a custom tokenizer, never). */
  workers?: boolean;
  /** Told when worker threads failed during a build or import (the main thread then does their work). */
  onWorkerFailure?: (error: Error) => void;
}

export interface RankOptions {
  /** How many pages the first pass hands to the second. */
  candidates: number;
  explain?: boolean;
  /** Also what each term scores in each page's best section (RankedPage.bestTerms). */
  termScores?: boolean;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class KnowledgeIndex {
  readonly #source: KnowledgeIndexSource;
  readonly #file: SearchIndexFile;
  readonly #reconcileEveryMs: number;
  readonly #now: () => number;
  readonly #tokenizer: Tokenizer;
  readonly #writer: IndexWriter;
  readonly #workers: boolean;
  #synonyms: { text: string; table: SynonymTable } | undefined;
  #syncing: Promise<SyncReport> | undefined;
  /** Page embeddings (optional semantic search). */
  readonly vectors: VectorIndex;
  /** What the last first pass did (for tests of its pruning). */
  lastFirstPass: FirstPassStats | undefined;

  constructor(options: KnowledgeIndexOptions) {
    this.#source = options.source;
    this.#file = SearchIndexFile.open(options.file);
    this.vectors = new VectorIndex(this.#file);
    this.#reconcileEveryMs = options.reconcileEveryMs ?? 5 * 60_000;
    this.#now = options.now ?? Date.now;
    this.#tokenizer = options.tokenizer ?? defaultTokenizer;
    this.#writer = new IndexWriter(this.#file, this.#tokenizer, options.onWorkerFailure);
    // Workers tokenise with the default tokenizer.
    this.#workers = (options.workers ?? true) && this.#tokenizer === defaultTokenizer;
  }

  get file(): string {
    return this.#file.file;
  }

  get tokenizer(): Tokenizer {
    return this.#tokenizer;
  }

  /** Pages prepared on worker threads by this index so far (for tests). */
  get preparedOnWorkers(): number {
    return this.#writer.preparedOnWorkers;
  }

  get indexFile(): SearchIndexFile {
    return this.#file;
  }

  /** Brings the index up to date; concurrent callers share one run. */
  sync(onProgress?: (progress: SyncProgress) => void): Promise<SyncReport> {
    this.#syncing ??= this.#sync(onProgress).finally(() => (this.#syncing = undefined));
    return this.#syncing;
  }

  /** Empties the index and builds it again from every page. */
  async rebuild(onProgress?: (progress: SyncProgress) => void): Promise<SyncReport> {
    await this.#syncing?.catch(() => undefined);
    this.#file.clear();
    return this.sync(onProgress);
  }

  /**
   * Indexes pages this process just wrote (the next sync would find them too, only later): as one
   * segment now, or during a bulk (startBulk) into its large segments.
   */
  async indexPages(pages: KnowledgePageRecord[]): Promise<void> {
    if (pages.length === 0) return;
    if (this.#writer.inBulk) return this.#writer.addToBulk(pages);
    this.#writer.index(pages);
  }

  removePages(pageIds: string[]): void {
    this.#file.removePages(pageIds);
  }

  /**
   * Starts collecting indexed pages into large segments, analysed on worker threads (an import of
   * many pages). They are searchable once endBulk (or a large enough collection) writes them.
   */
  startBulk(): void {
    this.#writer.startBulk(this.#workers);
  }

  endBulk(): Promise<void> {
    return this.#writer.endBulk();
  }

  async #sync(onProgress?: (progress: SyncProgress) => void): Promise<SyncReport> {
    const started = this.#now();
    this.#file.refresh();
    // Read what the index has seen before the stamp: the stamp can then only be newer.
    const seen = this.#file.lastRevisionId;
    const stamp = await this.#source.stamp();
    let report: SyncReport = { indexed: 0, removed: 0, rebuilt: false, ms: 0 };
    // The newest revision can go back: its page was deleted, or the database was replaced.
    // Only a full comparison tells which, so one runs below.
    let mustReconcile = stamp.lastRevisionId < seen;
    if (seen === 0 && this.#file.counts().pages === 0 && stamp.pages > 0) {
      report = await this.#build(stamp.pages, onProgress);
    } else if (stamp.lastRevisionId > seen) {
      report.indexed = await this.#applyChanges(seen, stamp.lastRevisionId, onProgress);
    }
    this.#file.lastRevisionId = stamp.lastRevisionId;
    // When the index was last compared in full is kept in the file: a short-lived process (the CLI)
    // does not repeat what another did a minute ago.
    const reconciledAt = Number(this.#file.meta('reconciledAt') ?? 0);
    mustReconcile ||= this.#now() - reconciledAt >= this.#reconcileEveryMs || this.#file.counts().pages !== stamp.pages;
    if (mustReconcile) {
      const reconciled = await this.#reconcile();
      report.indexed += reconciled.indexed;
      report.removed += reconciled.removed;
    }
    return { ...report, ms: this.#now() - started };
  }

  async #build(total: number, onProgress?: (progress: SyncProgress) => void): Promise<SyncReport> {
    let after = '';
    let done = 0;
    onProgress?.({ phase: 'rebuild', done, total });
    this.#writer.startBulk(this.#workers && total >= 4 * BATCH);
    try {
      for (;;) {
        const pages = await this.#source.batchAfter(after, BATCH);
        if (pages.length === 0) break;
        await this.#writer.addToBulk(pages);
        done += pages.length;
        after = pages.at(-1)!.id;
        onProgress?.({ phase: 'rebuild', done, total: Math.max(total, done) });
        await tick(); // a long build must not starve the bot's event loop
      }
    } finally {
      await this.#writer.endBulk();
    }
    this.#file.checkpoint();
    this.#file.setMeta('reconciledAt', String(this.#now()));
    return { indexed: done, removed: 0, rebuilt: true, ms: 0 };
  }

  async #applyChanges(fromRevisionId: number, toRevisionId: number, onProgress?: (progress: SyncProgress) => void): Promise<number> {
    let cursor = fromRevisionId;
    let indexed = 0;
    while (cursor < toRevisionId) {
      const { pageIds, lastRevisionId } = await this.#source.changedSince(cursor);
      if (lastRevisionId === cursor) break;
      cursor = lastRevisionId;
      indexed += await this.#refresh(pageIds, onProgress);
      this.#file.lastRevisionId = cursor;
    }
    return indexed;
  }

  /** Re-indexes the pages whose revision differs from the index's, and drops the deleted ones. */
  async #refresh(pageIds: string[], onProgress?: (progress: SyncProgress) => void): Promise<number> {
    let indexed = 0;
    for (let i = 0; i < pageIds.length; i += BATCH) {
      const ids = pageIds.slice(i, i + BATCH);
      const pages = await this.#source.getByIds(ids);
      const known = this.#file.revisionsOf(ids);
      const stale = pages.filter((page) => known.get(page.id) !== page.revision);
      const found = new Set(pages.map((p) => p.id));
      const gone = ids.filter((id) => !found.has(id) && known.has(id));
      if (stale.length) await this.indexPages(stale);
      if (gone.length) this.#file.removePages(gone);
      indexed += stale.length;
      onProgress?.({ phase: 'update', done: Math.min(i + BATCH, pageIds.length), total: pageIds.length });
      await tick();
    }
    return indexed;
  }

  async #reconcile(): Promise<{ indexed: number; removed: number }> {
    const [current, indexedRevisions] = [await this.#source.versions(), this.#file.pageRevisions()];
    const gone = [...indexedRevisions.keys()].filter((id) => !current.has(id));
    if (gone.length) this.#file.removePages(gone);
    const stale = [...current].filter(([id, revision]) => indexedRevisions.get(id) !== revision).map(([id]) => id);
    const indexed = stale.length ? await this.#refresh(stale) : 0;
    this.#file.setMeta('reconciledAt', String(this.#now()));
    return { indexed, removed: gone.length };
  }

  /** The best pages for weighted query terms: first pass over the postings, then their sections. */
  rank(terms: WeightedTerm[], limit: number, options: RankOptions): RankedPage[] {
    this.#file.refresh();
    const resolved = resolveTerms(this.#file, terms);
    if (resolved.length === 0) return [];
    const { pages, stats } = firstPass(resolved, Math.max(limit, options.candidates), this.#file.deletedDocs());
    this.lastFirstPass = stats;
    return rankSections(this.#file, resolved, pages, { explain: options.explain, termScores: options.termScores }).slice(0, limit);
  }

  /** In how many pages `term` occurs (0 when the index does not know it). */
  documentFrequency(term: string): number {
    return this.#file.documentFrequency(term);
  }

  /** The index's vocabulary, for corrections. */
  get vocabulary(): VocabularySource {
    return this.#file;
  }

  /** The built-in synonyms and the admins' list. */
  synonyms(): SynonymTable {
    const text = this.#file.synonymText();
    if (this.#synonyms?.text !== text) {
      this.#synonyms = { text, table: new SynonymTable([...BUILTIN_SYNONYMS, ...parseSynonyms(text)], this.#tokenizer) };
    }
    return this.#synonyms.table;
  }

  stats(): { pages: number; sections: number; bytes: number; file: string; segments: number } {
    return { ...this.#file.counts(), bytes: this.#file.bytes(), file: this.#file.file, segments: this.#file.segments().length };
  }

  /** Waits for a sync in progress, writes what a bulk import collected, then closes the file. */
  async close(): Promise<void> {
    await this.#syncing?.catch(() => undefined);
    await this.endBulk();
    this.#file.close();
  }
}
