// Search results as the CLI, the model's tools and the automatic context see them: pages with
// their best section and a snippet, from the keyword ranking fused (when semantic search is on)
// with the pages closest in meaning.
import type { KnowledgePageRecord, KnowledgeRepo } from '../store/repos/knowledge.ts';
import type { PageField } from './search/bm25.ts';
import { pageSections, sectionLabel } from './search/indexed-page.ts';
import type { KnowledgeIndex } from './search/knowledge-index.ts';
import { matchMeasure, matchShare } from './search/match.ts';
import { planQuery, type QueryPlan } from './search/query.ts';
import type { RankedPage } from './search/second-pass.ts';
import { fuse, type SemanticSearch } from './search/semantic.ts';
import { snippet } from './snippet.ts';
import type { Tokenizer } from './tokenizer.ts';

export interface PageHit {
  slug: string;
  title: string;
  /** Heading path of the best-matching section, or "(introduction)". */
  section: string;
  snippet: string;
  /** Best section's score plus half the next one's (pages that match in several places rank higher); 0 when only meaning matched. */
  score: number;
  /** The best section's score as a share of the query's best possible score (0-1, see match.ts); what the automatic context compares with its threshold. */
  match: number;
  /** Cosine similarity to the question, when semantic search found the page. */
  semantic?: number;
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
  /** Whether semantic search took part. */
  semantic: boolean;
}

export interface SectionHit {
  slug: string;
  title: string;
  section: string;
  score: number;
  /** The page's match (see PageHit). */
  match: number;
  markdown: string;
}

/**
 * When a page is good enough for the automatic context: its match at least `minMatch` and its
 * score at least `minScore` (each only when given; the configuration sets at least one).
 */
export interface ContextThreshold {
  minMatch?: number;
  minScore?: number;
}

export interface SearchContext {
  repo: Pick<KnowledgeRepo, 'getByIds'>;
  tokenizer: Tokenizer;
  /** The index, brought up to date (undefined while there are no pages). */
  index: KnowledgeIndex | undefined;
  semantic?: SemanticSearch;
}

/** The first pass hands at least this many pages to the second (section) pass. */
const MIN_CANDIDATES = 16;
/** Each ranking contributes this many pages per wanted hit to the fusion. */
const FUSION_DEPTH = 4;

interface KeywordRanking {
  plan: QueryPlan;
  pages: RankedPage[];
  /** A page's match: its best section's evidence as a share of the query's best possible score (see match.ts). */
  matchOf(page: RankedPage): number;
}

interface Ranked extends KeywordRanking {
  semantic: Map<string, number>;
  fused: boolean;
}

function keywordRanking(context: SearchContext, query: string, limit: number, explain: boolean): KeywordRanking {
  const { index, tokenizer } = context;
  if (!index) return { plan: planQuery(query, { tokenize: tokenizer }), pages: [], matchOf: () => 0 };
  const plan = planQuery(query, { tokenize: tokenizer, vocabulary: index.vocabulary, synonyms: index.synonyms() });
  const pages = index.rank(plan.weighted, limit, { candidates: Math.max(MIN_CANDIDATES, limit * 3), explain, termScores: true });
  const measure = matchMeasure(query, plan, {
    pages: index.indexFile.totals().pages,
    documentFrequency: (term) => index.documentFrequency(term),
  });
  // A page found by meaning alone has no term scores: it matched no word.
  const matchOf = (page: RankedPage) =>
    page.bestTerms
      ? matchShare(
          measure.evidence((term) => page.bestTerms?.get(term) ?? 0),
          measure.ceiling,
        )
      : 0;
  return { plan, pages, matchOf };
}

/** Whether a ranked page is good enough for the automatic context. */
function passes(page: RankedPage, match: number, threshold: ContextThreshold): boolean {
  return (
    (threshold.minScore === undefined || page.score >= threshold.minScore) &&
    (threshold.minMatch === undefined || match >= threshold.minMatch)
  );
}

async function rank(context: SearchContext, query: string, limit: number, explain: boolean): Promise<Ranked> {
  const { index, semantic } = context;
  if (!index || !semantic) return { ...keywordRanking(context, query, limit, explain), semantic: new Map(), fused: false };
  const depth = Math.max(limit * FUSION_DEPTH, 20);
  const [keyword, near] = await Promise.all([keywordRanking(context, query, depth, explain), semantic.search(index, query, depth)]);
  if (near.length === 0) return { ...keyword, pages: keyword.pages.slice(0, limit), semantic: new Map(), fused: false };
  const byDoc = new Map(keyword.pages.map((page) => [page.doc, page]));
  const order = fuse(
    keyword.pages.map((page) => page.doc),
    near.map((hit) => hit.doc),
  ).slice(0, limit);
  const pages = order.flatMap((doc): RankedPage[] => {
    const found = byDoc.get(doc);
    if (found) return [found];
    // Found by meaning alone: no section matched a word, so the page opens at its first one.
    const row = index.indexFile.page(doc);
    return row ? [{ doc, pageId: row.id, slug: row.slug, title: row.title, score: 0, pageScore: 0, best: { position: 0, score: 0 } }] : [];
  });
  const similarity = new Map(near.map((hit) => [hit.doc, hit.similarity]));
  return {
    plan: keyword.plan,
    pages,
    matchOf: keyword.matchOf,
    semantic: new Map(pages.filter((p) => similarity.has(p.doc)).map((p) => [p.pageId, similarity.get(p.doc)!])),
    fused: true,
  };
}

export async function searchPages(context: SearchContext, query: string, limit: number): Promise<SearchResult> {
  const ranked = await rank(context, query, limit, false);
  const hits = (await withSnippets(context, ranked, query)).map(({ ranked: _ranked, ...hit }) => hit);
  return { hits, ...planSummary(ranked.plan), semantic: ranked.fused };
}

export async function explainPages(context: SearchContext, query: string, limit: number): Promise<SearchResult<ExplainedHit>> {
  const ranked = await rank(context, query, limit, true);
  const hits = await withSnippets(context, ranked, query);
  const none: Record<PageField, number> = { title: 0, heading: 0, summary: 0, tags: 0, content: 0 };
  return {
    hits: hits.map(({ ranked: page, ...hit }) => ({
      ...hit,
      sectionScore: round(page.best.score),
      nextSectionScore: round(page.second?.score ?? 0),
      fields: roundFields(page.fields ?? none),
    })),
    ...planSummary(ranked.plan),
    semantic: ranked.fused,
  };
}

/**
 * Sections for the automatic context (keyword ranking only: it runs on every message): from the
 * pages good enough for it (`threshold`), in page order, each page's best section first, then
 * second-best ones while `limit` allows.
 */
export async function relevantSections(
  context: SearchContext,
  query: string,
  options: { limit: number } & ContextThreshold,
): Promise<SectionHit[]> {
  // No pages (no index yet): nothing to plan the query for.
  if (options.limit <= 0 || !context.index) return [];
  const { pages: ranked, matchOf } = keywordRanking(context, query, options.limit, false);
  const chosen = ranked.map((page) => ({ page, match: matchOf(page) })).filter(({ page, match }) => passes(page, match, options));
  const matches = [
    ...chosen.map(({ page, match }) => ({ pageId: page.pageId, section: page.best, match })),
    ...chosen.flatMap(({ page, match }) => (page.second ? [{ pageId: page.pageId, section: page.second, match }] : [])),
  ].slice(0, options.limit);
  const pages = await pagesById(
    context,
    chosen.map(({ page }) => page.pageId),
  );
  return matches.flatMap((match) => {
    const page = pages.get(match.pageId);
    const section = page && pageSections(page.content)[match.section.position];
    if (!page || !section) return [];
    return [
      {
        slug: page.slug,
        title: page.title,
        section: sectionLabel(section.path),
        score: round(match.section.score),
        match: match.match,
        markdown: section.markdown,
      },
    ];
  });
}

async function pagesById(context: SearchContext, ids: string[]): Promise<Map<string, KnowledgePageRecord>> {
  return new Map((await context.repo.getByIds(ids)).map((p) => [p.id, p]));
}

/** Hits with the snippet of their best section; a page deleted since it was ranked is left out. */
async function withSnippets(context: SearchContext, ranked: Ranked, query: string): Promise<(PageHit & { ranked: RankedPage })[]> {
  const pages = await pagesById(
    context,
    ranked.pages.map((r) => r.pageId),
  );
  return ranked.pages.flatMap((entry) => {
    const page = pages.get(entry.pageId);
    if (!page) return [];
    const section = pageSections(page.content)[entry.best.position];
    const similarity = ranked.semantic.get(entry.pageId);
    return [
      {
        slug: page.slug,
        title: page.title,
        section: sectionLabel(section?.path ?? ''),
        snippet: snippet(section?.text || page.summary, query),
        score: round(entry.score),
        match: ranked.matchOf(entry),
        ...(similarity !== undefined ? { semantic: Math.round(similarity * 1000) / 1000 } : {}),
        ranked: entry,
      },
    ];
  });
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
