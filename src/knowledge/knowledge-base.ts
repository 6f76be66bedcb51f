// The knowledge base as the CLI, the model's tools and the automatic context see it: pages with
// revisions in the database, and a search index kept in step with them.
import type { Logger } from '../log.ts';
import type {
  KnowledgePageListing,
  KnowledgePageRecord,
  KnowledgeRepo,
  KnowledgeRevisionRecord,
  KnowledgeSaveOptions,
  KnowledgeSaveResult,
} from '../store/repos/knowledge.ts';
import type { PageInput } from './page.ts';
import type { PageField } from './search/bm25.ts';
import { pageSections, sectionLabel } from './search/indexed-page.ts';
import { KnowledgeIndex, type SyncProgress, type SyncReport } from './search/knowledge-index.ts';
import { planQuery, type QueryPlan } from './search/query.ts';
import type { RankedPage } from './search/second-pass.ts';
import { snippet } from './snippet.ts';
import { defaultTokenizer, type Tokenizer } from './tokenizer.ts';

export interface PageHit {
  slug: string;
  title: string;
  /** Heading path of the best-matching section, or "(introduction)". */
  section: string;
  snippet: string;
  /** Best section's score plus half the next one's (pages that match in several places rank higher). */
  score: number;
}

export interface ExplainedHit extends PageHit {
  sectionScore: number;
  nextSectionScore: number;
  /** What each field alone scores for the best section (BM25 with that field's weight only). */
  fields: Record<PageField, number>;
}

export interface SearchResult<H extends PageHit = PageHit> {
  hits: H[];
  terms: string[];
  /** Query terms no page contains (and no correction replaced). */
  dropped: string[];
  /** Unknown words and the known terms they were read as. */
  corrections: QueryPlan['corrections'];
  /** Terms added from the synonym list. */
  synonyms: QueryPlan['synonyms'];
}

export interface SectionHit {
  slug: string;
  title: string;
  section: string;
  score: number;
  markdown: string;
}

export interface KnowledgeBaseOptions {
  repo: KnowledgeRepo;
  /** Where the search index lives (see knowledgeIndexFile). */
  indexFile: string;
  log?: Logger;
  /** Only to compare tokenisers (the benchmark). */
  tokenizer?: Tokenizer;
}

/** The first pass hands at least this many pages to the second (section) pass. */
const MIN_CANDIDATES = 32;

export class KnowledgeBase {
  readonly #repo: KnowledgeRepo;
  readonly #indexFile: string;
  readonly #log: Logger | undefined;
  readonly #tokenizer: Tokenizer;
  #index: KnowledgeIndex | undefined;

  constructor(options: KnowledgeBaseOptions) {
    this.#repo = options.repo;
    this.#indexFile = options.indexFile;
    this.#log = options.log;
    this.#tokenizer = options.tokenizer ?? defaultTokenizer;
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
    if (!options.dryRun && (result.status === 'created' || result.status === 'updated')) {
      this.#afterWrite(() => this.#openIndex().indexPages([result.page]));
    }
    return result;
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

  // Until the first page exists there is no index file to open: apps and tests that never use
  // knowledge leave nothing behind.
  async #ready(onProgress?: (progress: SyncProgress) => void): Promise<{ index?: KnowledgeIndex; report: SyncReport }> {
    if (!this.#index && (await this.#repo.count()) === 0) return { report: { indexed: 0, removed: 0, rebuilt: false, ms: 0 } };
    const index = this.#openIndex();
    return { index, report: await index.sync(onProgress) };
  }

  rebuild(onProgress?: (progress: SyncProgress) => void): Promise<SyncReport> {
    return this.#openIndex().rebuild(onProgress);
  }

  indexStats(): { pages: number; sections: number; bytes: number; file: string; segments: number } {
    return this.#openIndex().stats();
  }

  async search(query: string, options: { limit?: number } = {}): Promise<SearchResult> {
    const { plan, ranked } = await this.#rank(query, options.limit ?? 5);
    const hits = (await this.#withSnippets(ranked, query)).map(({ ranked: _ranked, ...hit }) => hit);
    return { hits, ...planSummary(plan) };
  }

  /** Search with the score broken down by field. */
  async explain(query: string, options: { limit?: number } = {}): Promise<SearchResult<ExplainedHit>> {
    const { plan, ranked } = await this.#rank(query, options.limit ?? 5, true);
    const hits = await this.#withSnippets(ranked, query);
    return {
      hits: hits.map(({ ranked: page, ...hit }) => ({
        ...hit,
        sectionScore: round(page.best.score),
        nextSectionScore: round(page.second?.score ?? 0),
        fields: roundFields(page.fields!),
      })),
      ...planSummary(plan),
    };
  }

  /**
   * Sections for the automatic context: from the pages scoring at least `minScore`, in page order,
   * each page's best section first, then second-best ones while `limit` allows.
   */
  async relevantSections(query: string, options: { limit: number; minScore: number }): Promise<SectionHit[]> {
    if (options.limit <= 0) return [];
    const { ranked } = await this.#rank(query, options.limit);
    const chosen = ranked.filter((page) => page.score >= options.minScore);
    const matches = [
      ...chosen.map((page) => ({ pageId: page.pageId, section: page.best })),
      ...chosen.flatMap((page) => (page.second ? [{ pageId: page.pageId, section: page.second }] : [])),
    ].slice(0, options.limit);
    const pages = new Map((await this.#repo.getByIds(chosen.map((page) => page.pageId))).map((p) => [p.id, p]));
    return matches.flatMap((match) => {
      const page = pages.get(match.pageId);
      const section = page && pageSections(page.content)[match.section.position];
      if (!page || !section) return [];
      return [{ slug: page.slug, title: page.title, section: sectionLabel(section.path), score: round(match.section.score), markdown: section.markdown }];
    });
  }

  async #rank(query: string, limit: number, explain = false): Promise<{ plan: QueryPlan; ranked: RankedPage[] }> {
    const { index } = await this.#ready();
    if (!index) return { plan: planQuery(query, { tokenize: this.#tokenizer }), ranked: [] };
    const plan = planQuery(query, { tokenize: this.#tokenizer, vocabulary: index.vocabulary, synonyms: index.synonyms() });
    const ranked = index.rank(plan.weighted, limit, { candidates: Math.max(MIN_CANDIDATES, limit * 4), explain });
    return { plan, ranked };
  }

  /** Hits with the snippet of their best section; a page deleted since it was ranked is left out. */
  async #withSnippets(ranked: RankedPage[], query: string): Promise<(PageHit & { ranked: RankedPage })[]> {
    const pages = new Map((await this.#repo.getByIds(ranked.map((r) => r.pageId))).map((p) => [p.id, p]));
    return ranked.flatMap((entry) => {
      const page = pages.get(entry.pageId);
      if (!page) return [];
      const section = pageSections(page.content)[entry.best.position];
      return [
        {
          slug: page.slug,
          title: page.title,
          section: sectionLabel(section?.path ?? ''),
          snippet: snippet(section?.text || page.summary, query),
          score: round(entry.score),
          ranked: entry,
        },
      ];
    });
  }

  async close(): Promise<void> {
    const index = this.#index;
    this.#index = undefined;
    await index?.close();
  }
}

function round(score: number): number {
  return Math.round(score * 100) / 100;
}

function roundFields(fields: Record<PageField, number>): Record<PageField, number> {
  return Object.fromEntries(Object.entries(fields).map(([field, score]) => [field, round(score)])) as Record<PageField, number>;
}

function planSummary(plan: QueryPlan) {
  return { terms: plan.terms, dropped: plan.dropped, corrections: plan.corrections, synonyms: plan.synonyms };
}
