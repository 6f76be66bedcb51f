// First pass: the best `m` pages by BM25F over the posting lists, term at a time with max-score
// pruning. Terms are taken in order of the most they can add to a page (weight × idf × best
// impact); once the m-th best page so far scores more than everything the remaining terms could
// still add, no page outside the current ones can enter the top m, so the remaining terms are
// only looked up (binary search) for the pages that can still make it. The result is exactly the
// top m of the full sum.
import { idf, impactScale } from './bm25.ts';
import { findDoc, type Postings } from './codec.ts';
import type { SearchIndexFile } from './index-file.ts';

export interface WeightedTerm {
  term: string;
  /** How much the term counts (1 for the question itself; less for side remarks, synonyms, corrections). */
  weight: number;
}

export interface ResolvedTerm extends WeightedTerm {
  termId: number;
  df: number;
  idf: number;
  /** The most this term adds to one page's score. */
  maxScore: number;
  scale: number;
  lists: Postings[];
}

export interface PageCandidate {
  doc: number;
  score: number;
}

export interface FirstPassStats {
  /** Postings in the lists of the query's terms. */
  postings: number;
  /** Postings read one by one (the rest were skipped or binary-searched). */
  scanned: number;
  /** Binary searches for pages that could still enter the top m. */
  lookups: number;
}

/** The query's terms as the index knows them (unknown terms left out), best possible contribution first. */
export function resolveTerms(file: SearchIndexFile, terms: WeightedTerm[]): ResolvedTerm[] {
  const documents = Math.max(1, file.totals().pages);
  const out: ResolvedTerm[] = [];
  for (const { term, weight } of terms) {
    const postings = file.postings(term);
    if (!postings || postings.df === 0 || weight <= 0) continue;
    const termIdf = idf(postings.df, documents);
    const scale = weight * impactScale(termIdf);
    out.push({
      term,
      weight,
      termId: postings.termId,
      df: postings.df,
      idf: termIdf,
      scale,
      maxScore: scale * postings.maxImpact,
      lists: postings.lists,
    });
  }
  return out.sort((a, b) => b.maxScore - a.maxScore || a.term.localeCompare(b.term));
}

// Scores by document number, reused across queries (reset after each).
let scores = new Float64Array(1024);

/** The value a page must beat to be in the top m of `docs` (0 while there are fewer than m). */
function threshold(docs: ArrayLike<number>, count: number, m: number): number {
  if (count < m) return 0;
  const values = new Float64Array(count);
  for (let i = 0; i < count; i++) values[i] = scores[docs[i]!]!;
  // Quickselect the m-th largest.
  let lo = 0;
  let hi = count - 1;
  const k = m - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return values[k]!;
}

/**
 * Adds a term's impacts to the (ascending) candidates it contains: by binary search from where
 * the last one was found when the candidates are few, else by walking both lists side by side.
 */
function addToCandidates(candidates: number[], { docs, impacts }: Postings, scale: number, stats: FirstPassStats): void {
  if (candidates.length * 16 < docs.length) {
    let from = 0;
    for (const doc of candidates) {
      stats.lookups++;
      const at = findDoc(docs, doc, from);
      if (at >= 0) {
        scores[doc]! += scale * impacts[at]!;
        from = at + 1;
      }
    }
    return;
  }
  stats.scanned += docs.length;
  let p = 0;
  for (const doc of candidates) {
    while (p < docs.length && docs[p]! < doc) p++;
    if (p < docs.length && docs[p] === doc) scores[doc]! += scale * impacts[p]!;
  }
}

export function firstPass(terms: ResolvedTerm[], m: number, deleted: Set<number>): { pages: PageCandidate[]; stats: FirstPassStats } {
  const stats: FirstPassStats = { postings: 0, scanned: 0, lookups: 0 };
  let maxDoc = 0;
  for (const term of terms) {
    for (const list of term.lists) {
      stats.postings += list.docs.length;
      if (list.docs.length) maxDoc = Math.max(maxDoc, list.docs[list.docs.length - 1]!);
    }
  }
  if (scores.length <= maxDoc) scores = new Float64Array(Math.max(maxDoc + 1, scores.length * 2));
  const remaining = new Float64Array(terms.length + 1);
  for (let i = terms.length - 1; i >= 0; i--) remaining[i] = remaining[i + 1]! + terms[i]!.maxScore;

  const touched: number[] = [];
  let candidates: number[] | undefined;
  // Deleted documents are rare: only then is every posting checked against them.
  const skip = deleted.size > 0 ? deleted : undefined;
  try {
    let i = 0;
    let best = 0;
    for (; i < terms.length; i++) {
      // Could a page not seen yet still enter the top m? If not, only the current pages matter.
      // Finding the m-th best score costs a pass over the pages seen: worth it only when this
      // term's lists are longer, and only when the best page alone is already out of reach.
      const { scale, lists } = terms[i]!;
      const length = lists.reduce((n, list) => n + list.docs.length, 0);
      if (
        i > 0 &&
        touched.length >= m &&
        best > remaining[i]! &&
        touched.length <= 2 * length &&
        threshold(touched, touched.length, m) > remaining[i]!
      )
        break;
      for (const { docs, impacts } of lists) {
        stats.scanned += docs.length;
        for (let p = 0; p < docs.length; p++) {
          const doc = docs[p]!;
          if (skip?.has(doc)) continue;
          if (scores[doc] === 0) touched.push(doc);
          scores[doc]! += scale * impacts[p]!;
          const score = scores[doc]!;
          if (score > best) best = score;
        }
      }
    }
    if (i < terms.length) {
      let floor = threshold(touched, touched.length, m);
      candidates = touched.filter((doc) => scores[doc]! + remaining[i]! >= floor).sort((a, b) => a - b);
      for (; i < terms.length && candidates.length > 0; i++) {
        const { scale, lists } = terms[i]!;
        for (const list of lists) addToCandidates(candidates, list, scale, stats);
        floor = threshold(candidates, candidates.length, m);
        candidates = candidates.filter((doc) => scores[doc]! + remaining[i + 1]! >= floor);
      }
    }
    const pool = candidates ?? touched;
    const pages = pool.map((doc) => ({ doc, score: scores[doc]! }));
    pages.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return { pages: pages.slice(0, m), stats };
  } finally {
    for (const doc of touched) scores[doc] = 0;
  }
}
