// Writes pages into the index file: analyses them (on worker threads during large builds and
// imports, see analyzer-pool.ts), gives their terms ids, collects them into a segment and writes
// it (merging small segments afterwards). A few pages written by this process become one segment
// at once; a bulk (a rebuild or an import) collects large segments, written as they fill and when
// it ends.
import type { KnowledgePageRecord } from '../../store/repos/knowledge.ts';
import type { Tokenizer } from '../tokenizer.ts';
import { AnalyzerPool, type PreparedBatch } from './analyzer-pool.ts';
import type { SearchIndexFile } from './index-file.ts';
import { StaleSegmentError } from './index-layout.ts';
import { analyzePage, pageTermIds, type AnalyzedPage } from './indexed-page.ts';
import { mergeSegments } from './merge.ts';
import { SegmentBuilder } from './segment-builder.ts';
import { SYNONYMS_SLUG } from './synonyms.ts';
import { embeddingText, textHash } from './vectors.ts';

/** A bulk writes a segment every this many postings (about 30 MB of memory while building). */
const FLUSH_POSTINGS = 4_000_000;
/** Batches of at least this many pages go to the worker threads, when there are any. */
const POOL_MIN_PAGES = 32;
/**
 * Pages a worker is given at once (an import writes 200 per transaction). Each job ends with one
 * write transaction giving the job's new terms their ids: new terms land all over the term
 * table, so a commit writes much of it again whatever the job's size, and fewer, larger jobs
 * write far less (and hold the index's write lock less often).
 */
const POOL_JOB_PAGES = 1_000;
// Term objects carry the id they have in one index (see #termIds); each writer and epoch is an owner.
let owners = 0;
const STALE = 'stale';

/** The synonym list is a page for the admins, not an answer: indexed without terms. */
const withoutHiddenText = (page: KnowledgePageRecord): KnowledgePageRecord =>
  page.slug === SYNONYMS_SLUG ? { ...page, title: '', summary: '', tags: [], content: '' } : page;

type Analysis = { kind: 'terms'; pages: AnalyzedPage[] } | { kind: 'prepared'; batch: PreparedBatch };

interface Pending {
  records: KnowledgePageRecord[];
  analysis: Promise<Analysis>;
}

export class IndexWriter {
  readonly #file: SearchIndexFile;
  readonly #tokenizer: Tokenizer;
  #owner = 0;
  #epoch: string | undefined;
  /** Pages prepared on worker threads so far (for tests of the pool). */
  preparedOnWorkers = 0;
  #bulk:
    | {
        builder: SegmentBuilder;
        pending: Pending[];
        /** Pages waiting to make up a worker's job. */
        collected: KnowledgePageRecord[];
        pool: AnalyzerPool | undefined;
        draining: Promise<void>;
        failed: boolean;
      }
    | undefined;
  readonly #onWorkerFailure: ((error: Error) => void) | undefined;

  /** `onWorkerFailure`: told (once per bulk) that worker threads failed and the main thread took over. */
  constructor(file: SearchIndexFile, tokenizer: Tokenizer, onWorkerFailure?: (error: Error) => void) {
    this.#file = file;
    this.#tokenizer = tokenizer;
    this.#onWorkerFailure = onWorkerFailure;
  }

  /** Indexes pages as one segment, now. */
  index(pages: KnowledgePageRecord[]): void {
    for (let attempt = 1; ; attempt++) {
      const builder = this.#builder();
      this.#add(builder, pages, { kind: 'terms', pages: pages.map((page) => analyzePage(withoutHiddenText(page), this.#tokenizer)) });
      try {
        this.#write(builder);
        return;
      } catch (error) {
        // Another process emptied the index meanwhile: the term ids are from before; once more.
        if (!(error instanceof StaleSegmentError) || attempt > 1) throw error;
      }
    }
  }

  get inBulk(): boolean {
    return this.#bulk !== undefined;
  }

  /** Starts collecting pages into large segments; `parallel`: analyse on worker threads. */
  startBulk(parallel: boolean): void {
    this.#bulk ??= {
      builder: this.#builder(),
      pending: [],
      collected: [],
      pool: parallel ? AnalyzerPool.start(this.#file.file) : undefined,
      draining: Promise.resolve(),
      failed: false,
    };
  }

  /**
   * Adds pages to the bulk; resolves once fewer jobs wait than the workers can overlap. With
   * workers, pages are collected into jobs of POOL_JOB_PAGES (endBulk sends the rest).
   */
  async addToBulk(pages: KnowledgePageRecord[]): Promise<void> {
    const bulk = this.#bulk;
    if (!bulk) throw new Error('addToBulk outside a bulk');
    if (!bulk.pool) return this.#dispatch(pages);
    bulk.collected.push(...pages);
    if (bulk.collected.length < POOL_JOB_PAGES) return;
    const job = bulk.collected;
    bulk.collected = [];
    return this.#dispatch(job);
  }

  /** Analyses `pages` (on a worker when there are enough of them), then adds them to the bulk's segment in order. */
  async #dispatch(pages: KnowledgePageRecord[]): Promise<void> {
    const bulk = this.#bulk!;
    const pool = pages.length >= POOL_MIN_PAGES ? bulk.pool : undefined;
    const analysis: Promise<Analysis> = pool
      ? pool.prepare(pages.map(withoutHiddenText)).then(
          (batch) => ({ kind: 'prepared', batch }),
          (error: Error) => {
            if (!bulk.failed) this.#onWorkerFailure?.(error);
            bulk.failed = true;
            return { kind: 'terms', pages: pages.map((page) => analyzePage(withoutHiddenText(page), this.#tokenizer)) };
          },
        )
      : Promise.resolve({ kind: 'terms', pages: pages.map((page) => analyzePage(withoutHiddenText(page), this.#tokenizer)) });
    bulk.pending.push({ records: pages, analysis });
    await this.#drain(pool ? 3 : 0);
  }

  /** Writes everything the bulk collected. */
  async endBulk(): Promise<void> {
    const bulk = this.#bulk;
    if (!bulk) return;
    try {
      if (bulk.collected.length) await this.#dispatch(bulk.collected.splice(0));
      await this.#drain(0);
      this.#writeBulk();
    } finally {
      this.#bulk = undefined;
      await bulk.pool?.close();
    }
  }

  // Adds finished analyses to the bulk's segment in order, writing it when it is large enough.
  #drain(keep: number): Promise<void> {
    const bulk = this.#bulk!;
    bulk.draining = bulk.draining.then(async () => {
      while (bulk.pending.length > keep) {
        const { records, analysis } = bulk.pending.shift()!;
        this.#add(bulk.builder, records, await analysis);
        if (bulk.builder.postingCount >= FLUSH_POSTINGS) this.#writeBulk();
      }
    });
    return bulk.draining;
  }

  #writeBulk(): void {
    const bulk = this.#bulk!;
    const builder = bulk.builder;
    bulk.builder = this.#builder();
    if (builder.pages.length === 0) return;
    try {
      this.#write(builder);
    } catch (error) {
      // Emptied by another process meanwhile: the next sync indexes these pages from the database.
      if (!(error instanceof StaleSegmentError)) throw error;
    }
  }

  #builder(): SegmentBuilder {
    const totals = this.#file.totals();
    return new SegmentBuilder(totals, totals.pages);
  }

  #write(builder: SegmentBuilder): void {
    this.#file.writeSegment(builder);
    mergeSegments(this.#file);
  }

  #add(builder: SegmentBuilder, records: KnowledgePageRecord[], analysis: Analysis): void {
    if (analysis.kind === 'terms') {
      const ids = this.#termIds(analysis.pages);
      builder.epoch ??= this.#epoch;
      for (const [i, page] of analysis.pages.entries()) builder.add(page, ids[i]!);
    } else {
      // Ids from before the index was emptied cannot be mixed with later ones: the write then fails as stale.
      builder.epoch ??= analysis.batch.epoch;
      if (builder.epoch !== analysis.batch.epoch) builder.epoch = STALE;
      for (const page of analysis.batch.pages) builder.addPrepared(page);
      this.preparedOnWorkers += analysis.batch.pages.length;
    }
    const added = builder.pages.slice(builder.pages.length - records.length);
    records.forEach((record, i) => {
      if (record.slug === SYNONYMS_SLUG) added[i]!.synonyms = record.content;
      // Workers hash the embedding's text with the page's analysis.
      else added[i]!.embed = analysis.kind === 'prepared' ? analysis.batch.pages[i]!.embed : textHash(embeddingText(record));
    });
  }

  /** Notices when the index was emptied (by any process): term ids start over then. */
  #checkEpoch(): void {
    const epoch = this.#file.meta('epoch');
    if (epoch === this.#epoch && this.#owner !== 0) return;
    this.#owner = ++owners;
    this.#epoch = epoch;
  }

  /** Term ids of each page's terms, kept on the term objects. */
  #termIds(pages: AnalyzedPage[]): Int32Array[] {
    this.#checkEpoch();
    const owner = this.#owner;
    return pageTermIds(pages, owner, (texts) => this.#file.termIds(texts));
  }
}
