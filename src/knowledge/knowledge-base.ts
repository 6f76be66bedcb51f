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
import type { Field, SectionMatch } from './search/index-file.ts';
import { pageSections, sectionLabel } from './search/indexed-page.ts';
import { KnowledgeIndex, type QueryPlan, type SyncProgress, type SyncReport } from './search/knowledge-index.ts';
import { snippet } from './snippet.ts';
import { tokenize as defaultTokenize, type Tokenize } from './tokenizer.ts';

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
  fields: Record<Field, number>;
}

export interface SearchResult<H extends PageHit = PageHit> {
  hits: H[];
  terms: string[];
  /** Very frequent terms left out of a large index. */
  dropped: string[];
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
  tokenize?: Tokenize;
}

const NEXT_SECTION_SHARE = 0.5;

interface RankedPage {
  best: SectionMatch;
  second?: SectionMatch;
  score: number;
}

export class KnowledgeBase {
  readonly #repo: KnowledgeRepo;
  readonly #indexFile: string;
  readonly #log: Logger | undefined;
  readonly #tokenize: Tokenize;
  #index: KnowledgeIndex | undefined;

  constructor(options: KnowledgeBaseOptions) {
    this.#repo = options.repo;
    this.#indexFile = options.indexFile;
    this.#log = options.log;
    this.#tokenize = options.tokenize ?? defaultTokenize;
  }

  #openIndex(): KnowledgeIndex {
    this.#index ??= new KnowledgeIndex({ source: this.#repo, file: this.#indexFile, tokenize: this.#tokenize });
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
      this.#afterWrite(() => this.#openIndex().indexPage(result.page));
    }
    return result;
  }

  /** Deletes a page with its history; false when there was no such page. */
  async remove(slug: string): Promise<boolean> {
    const page = await this.#repo.get(slug);
    if (!page || !(await this.#repo.remove(slug))) return false;
    this.#afterWrite(() => this.#openIndex().removePage(page.id));
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

  indexStats(): { pages: number; sections: number; bytes: number; file: string } {
    return this.#openIndex().stats();
  }

  async search(query: string, options: { limit?: number } = {}): Promise<SearchResult> {
    const { plan, ranked } = await this.#rank(query, options.limit ?? 5);
    const hits = (await this.#withSnippets(ranked, query)).map(({ ranked: _ranked, ...hit }) => hit);
    return { hits, terms: plan.terms, dropped: plan.dropped };
  }

  /** Search with the score broken down by field. */
  async explain(query: string, options: { limit?: number } = {}): Promise<SearchResult<ExplainedHit>> {
    const { plan, ranked } = await this.#rank(query, options.limit ?? 5);
    const hits = await this.#withSnippets(ranked, query);
    const fields = ranked.length ? this.#openIndex().fieldScores(plan, ranked.map((r) => r.best.sectionId)) : new Map<number, Record<Field, number>>();
    return {
      hits: hits.map(({ ranked: page, ...hit }) => ({
        ...hit,
        sectionScore: round(page.best.score),
        nextSectionScore: round(page.second?.score ?? 0),
        fields: roundFields(fields.get(page.best.sectionId)!),
      })),
      terms: plan.terms,
      dropped: plan.dropped,
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
    const matches = [...chosen.map((page) => page.best), ...chosen.flatMap((page) => (page.second ? [page.second] : []))].slice(0, options.limit);
    const pages = new Map((await this.#repo.getByIds(chosen.map((page) => page.best.pageId))).map((p) => [p.id, p]));
    return matches.flatMap((match) => {
      const page = pages.get(match.pageId);
      const section = page && pageSections(page.content)[match.position];
      if (!page || !section) return [];
      return [{ slug: page.slug, title: page.title, section: sectionLabel(section.path), score: round(match.score), markdown: section.markdown }];
    });
  }

  async #rank(query: string, limit: number): Promise<{ plan: QueryPlan; ranked: RankedPage[] }> {
    const { index } = await this.#ready();
    if (!index) return { plan: { terms: [...new Set(this.#tokenize(query))], dropped: [], expression: '' }, ranked: [] };
    const plan = index.plan(query);
    const byPage = new Map<string, { best: SectionMatch; second?: SectionMatch }>();
    for (const match of index.sections(plan, Math.max(40, limit * 8))) {
      const entry = byPage.get(match.pageId);
      if (!entry) byPage.set(match.pageId, { best: match });
      else entry.second ??= match;
    }
    const ranked = [...byPage.values()]
      .map((entry) => ({ ...entry, score: entry.best.score + NEXT_SECTION_SHARE * (entry.second?.score ?? 0) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
    return { plan, ranked };
  }

  /** Hits with the snippet of their best section; a page deleted since it was ranked is left out. */
  async #withSnippets(ranked: RankedPage[], query: string): Promise<(PageHit & { ranked: RankedPage })[]> {
    const pages = new Map((await this.#repo.getByIds(ranked.map((r) => r.best.pageId))).map((p) => [p.id, p]));
    return ranked.flatMap((entry) => {
      const page = pages.get(entry.best.pageId);
      if (!page) return [];
      const section = pageSections(page.content)[entry.best.position];
      return [
        {
          slug: page.slug,
          title: page.title,
          section: sectionLabel(section?.path ?? entry.best.path),
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

function roundFields(fields: Record<Field, number>): Record<Field, number> {
  return Object.fromEntries(Object.entries(fields).map(([field, score]) => [field, round(score)])) as Record<Field, number>;
}
