// Scoring. Two BM25-class models over the same terms:
// - pages (first pass, over the posting lists): BM25F with per-field weights and length
//   normalisation. A term's saturated frequency in a page does not depend on the query, so it is
//   computed once when the page is indexed and stored as an "impact" byte; at query time a page's
//   score is the sum of idf × impact over the query's terms, and a term's best impact bounds what
//   it can still add (which is what lets the first pass stop early);
// - sections (second pass, within the best pages): BM25 over a section with its page's title,
//   summary and tags, as one document (title > heading, summary, tags > content). A page scores its
//   best section plus half the next one, so pages that match in several places rank higher.

export const PAGE_FIELDS = ['title', 'heading', 'summary', 'tags', 'content'] as const;
export type PageField = (typeof PAGE_FIELDS)[number];
export type FieldCounts = Record<PageField, number>;

const K1 = 1.2;
/** Title > heading, summary and tags > content. */
export const FIELD_WEIGHTS: FieldCounts = { title: 4, heading: 2, summary: 2, tags: 2, content: 1 };
const PAGE_B: FieldCounts = { title: 0.5, heading: 0.5, summary: 0.5, tags: 0.5, content: 0.75 };
const SECTION_B = 0.75;
export const NEXT_SECTION_SHARE = 0.5;
/**
 * Section scores are multiplied by this so that they stay on the scale of earlier versions (which
 * ranked sections alone, with a larger idf): configured PARLEY_KNOWLEDGE_MIN_SCORE values (now
 * deprecated) keep their meaning. Measured on the grammY golden questions (median score of the
 * right page).
 */
const SCORE_SCALE = 1.4;

/**
 * Field lengths assumed before many pages are indexed, weighted as this many pages: the first
 * pages of a new index are then normalised against something sensible rather than themselves.
 */
const PRIOR_LENGTHS: FieldCounts = { title: 5, heading: 12, summary: 20, tags: 2, content: 400 };
const PRIOR_PAGES = 50;

/** Average field lengths from totals over `pages` pages, blended with the prior. */
export function averageLengths(totals: FieldCounts, pages: number): FieldCounts {
  const out = {} as FieldCounts;
  for (const field of PAGE_FIELDS) out[field] = Math.max(1, (PRIOR_LENGTHS[field] * PRIOR_PAGES + totals[field]) / (PRIOR_PAGES + pages));
  return out;
}

/** Per field (PAGE_FIELDS order): what one occurrence adds to a term's weighted, length-normalised frequency in this page. */
export function fieldFactors(lengths: FieldCounts, average: FieldCounts): Float64Array {
  return Float64Array.from(
    PAGE_FIELDS,
    (field) => FIELD_WEIGHTS[field] / (1 - PAGE_B[field] + (PAGE_B[field] * lengths[field]) / average[field]),
  );
}

/** The stored impact (1-255) of a term with weighted, normalised frequency `tf` (BM25 saturation). */
export function impactOf(tf: number): number {
  return Math.max(1, Math.min(255, Math.round((255 * tf) / (K1 + tf))));
}

/** What one unit of impact is worth for a term with this idf (a page's score adds impact × this). */
export function impactScale(idf: number): number {
  return (idf * (K1 + 1)) / 255;
}

/** Robertson-Spärck Jones idf, never negative. */
export function idf(documentFrequency: number, documents: number): number {
  const n = Math.min(documentFrequency, documents);
  return Math.log(1 + (documents - n + 0.5) / (n + 0.5));
}

/** The most one term with this (weighted) idf can add to a section's score: sectionTermScore as its frequency grows without end. */
export function sectionTermCeiling(idfValue: number): number {
  return SCORE_SCALE * idfValue * (K1 + 1);
}

/** BM25 of one term in one section (`weightedTf` counts title ×4, heading, summary, tags ×2, content ×1). */
export function sectionTermScore(idfValue: number, weightedTf: number, sectionLength: number, averageSectionLength: number): number {
  if (weightedTf <= 0) return 0;
  const norm = 1 - SECTION_B + (SECTION_B * sectionLength) / Math.max(1, averageSectionLength);
  return (SCORE_SCALE * idfValue * weightedTf * (K1 + 1)) / (weightedTf + K1 * norm);
}
