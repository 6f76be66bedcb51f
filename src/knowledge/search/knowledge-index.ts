// Keeps the search index file in step with the pages in the database and answers queries.
// Writes made through this process are indexed at once; writes made by other processes (the CLI
// while the bot runs, other bot processes) are picked up before each search by comparing a cheap
// stamp of the database (page count, newest revision id) with what the index has seen. A full
// reconciliation runs when the counts disagree and every few minutes, which also covers PostgreSQL
// sequences committing out of order.
import type { KnowledgePageRecord, KnowledgeRepo } from '../../store/repos/knowledge.ts';
import { tokenize as defaultTokenize, type Tokenize } from '../tokenizer.ts';
import { anyOf, FIELDS, SearchIndexFile, type Field, type FieldWeights, type IndexedPage, type SectionMatch } from './index-file.ts';
import { toIndexedPage } from './indexed-page.ts';

/** Title > heading, summary and tags > content (BM25 per-column weights). */
export const FIELD_WEIGHTS: FieldWeights = { title: 4, heading: 2, summary: 2, tags: 2, content: 1 };

const BATCH = 200;
const MAX_QUERY_TERMS = 32;
// At scale, terms found in more than a fifth of all sections carry almost no BM25 weight (idf < 1.4)
// but dominate query time; they are left out of large indexes, keeping at least the rarest few.
const PRUNE_FROM_SECTIONS = 20_000;
const PRUNE_ABOVE_SHARE = 0.2;
const KEEP_RAREST = 3;

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

export interface QueryPlan {
  terms: string[];
  /** Frequent terms left out of a large index. */
  dropped: string[];
  expression: string;
}

export interface KnowledgeIndexOptions {
  source: KnowledgeIndexSource;
  file: string;
  reconcileEveryMs?: number;
  now?: () => number;
  /** Only to compare tokenisers (the benchmark); an index must be built and queried with one. */
  tokenize?: Tokenize;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class KnowledgeIndex {
  readonly #source: KnowledgeIndexSource;
  readonly #file: SearchIndexFile;
  readonly #reconcileEveryMs: number;
  readonly #now: () => number;
  readonly #tokenize: Tokenize;
  readonly #toIndexed: (page: KnowledgePageRecord) => IndexedPage;
  #lastReconcile = 0;
  #syncing: Promise<SyncReport> | undefined;

  constructor(options: KnowledgeIndexOptions) {
    this.#source = options.source;
    this.#file = SearchIndexFile.open(options.file);
    this.#reconcileEveryMs = options.reconcileEveryMs ?? 5 * 60_000;
    this.#now = options.now ?? Date.now;
    const tokenize = options.tokenize ?? defaultTokenize;
    this.#tokenize = tokenize;
    this.#toIndexed = (page) => toIndexedPage(page, tokenize);
  }

  get file(): string {
    return this.#file.file;
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

  /** Indexes a page this process just wrote (the next sync would find it too, only later). */
  indexPage(page: KnowledgePageRecord): void {
    this.#file.replacePages([this.#toIndexed(page)]);
  }

  removePage(pageId: string): void {
    this.#file.removePages([pageId]);
  }

  async #sync(onProgress?: (progress: SyncProgress) => void): Promise<SyncReport> {
    const started = this.#now();
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
    mustReconcile ||= this.#now() - this.#lastReconcile >= this.#reconcileEveryMs || this.#file.counts().pages !== stamp.pages;
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
    for (;;) {
      const pages = await this.#source.batchAfter(after, BATCH);
      if (pages.length === 0) break;
      this.#file.replacePages(pages.map(this.#toIndexed));
      done += pages.length;
      after = pages.at(-1)!.id;
      onProgress?.({ phase: 'rebuild', done, total: Math.max(total, done) });
      await tick(); // a long build must not starve the bot's event loop
    }
    this.#lastReconcile = this.#now();
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
      if (stale.length) this.#file.replacePages(stale.map(this.#toIndexed));
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
    this.#lastReconcile = this.#now();
    return { indexed, removed: gone.length };
  }

  /** The query's terms, minus very frequent ones in a large index. */
  plan(query: string): QueryPlan {
    const unique = [...new Set(this.#tokenize(query))].slice(0, MAX_QUERY_TERMS);
    const { sections } = this.#file.counts();
    let terms = unique;
    if (sections >= PRUNE_FROM_SECTIONS && unique.length > KEEP_RAREST) {
      const frequencies = this.#file.documentFrequencies(unique);
      const byRarity = [...unique].sort((a, b) => frequencies.get(a)! - frequencies.get(b)!);
      const keep = new Set(byRarity.filter((term, i) => i < KEEP_RAREST || frequencies.get(term)! <= sections * PRUNE_ABOVE_SHARE));
      terms = unique.filter((term) => keep.has(term));
    }
    return { terms, dropped: unique.filter((t) => !terms.includes(t)), expression: anyOf(terms) };
  }

  /** Best sections for `query`, by weighted BM25. */
  sections(plan: QueryPlan, limit: number, weights: FieldWeights = FIELD_WEIGHTS): SectionMatch[] {
    if (plan.terms.length === 0) return [];
    return this.#file.match(plan.expression, weights, limit);
  }

  /** What each field alone scores for the given sections. */
  fieldScores(plan: QueryPlan, sectionIds: number[], weights: FieldWeights = FIELD_WEIGHTS): Map<number, Record<Field, number>> {
    const out = new Map<number, Record<Field, number>>(sectionIds.map((id) => [id, { title: 0, heading: 0, summary: 0, tags: 0, content: 0 }]));
    if (plan.terms.length === 0) return out;
    for (const field of FIELDS) {
      for (const [id, score] of this.#file.fieldScores(plan.expression, sectionIds, field, weights[field])) out.get(id)![field] = score;
    }
    return out;
  }

  stats(): { pages: number; sections: number; bytes: number; file: string } {
    return { ...this.#file.counts(), bytes: this.#file.bytes(), file: this.#file.file };
  }

  /** Waits for a sync in progress, then closes the file. */
  async close(): Promise<void> {
    await this.#syncing?.catch(() => undefined);
    this.#file.close();
  }
}
