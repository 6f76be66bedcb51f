// How well the best section answers a query, from 0 to 1, the same way for any language and any
// length of question: its score as a share of the query's best possible score. A raw BM25 score
// grows with the number of query terms (a Chinese sentence gives a dozen bigrams, an English one
// three stemmed words), so a fixed score threshold let long and Chinese questions in and kept
// short English ones out. The best possible score is what a section would score if it matched
// every term of the question at full strength (sectionTermCeiling), where:
// - each of the question's own terms counts with its idf, a rare term at most as much as a term
//   in one page out of RARE_SHARE (typos, and the bigrams that straddle two Chinese words, are
//   rare and would otherwise dominate), times its weight squared: a term of the question itself
//   counts fully, a side remark of a long message (searched at weight 0.35) about a tenth, since
//   the page that answers the question rarely matches the remarks around it;
// - a term no page has and nothing replaced counts as such a rare term (a question about
//   something the knowledge base never mentions matches little of it); a corrected term counts as
//   its best correction;
// - a run of n CJK characters gives n - 1 overlapping bigrams but holds about n / 2 words, so its
//   bigrams count (n / 2) / (n - 1) each (a lone bigram counts 1);
// - one more rare term stands for what a very short message leaves unsaid, so "hello" matching a
//   page's greeting is not a perfect match.
// Calibrated on the grammY golden, short and hard questions (bench/knowledge-threshold.ts).
import { CJK_CHAR } from '../tokenizer.ts';
import { idf, sectionTermCeiling } from './bm25.ts';
import type { QueryPlan } from './query.ts';

/** A term in fewer than one page in this many counts no more than that in the best possible score. */
const RARE_SHARE = 16;
/** A word of this many CJK characters, on average, for the bigram discount. */
const CJK_WORD_CHARS = 2;

const CJK_RUN = new RegExp(`${CJK_CHAR.source}{2,}`, 'gu');

export interface TermStatistics {
  /** Pages in the index. */
  pages: number;
  documentFrequency(term: string): number;
}

/** What each CJK bigram of `query` counts for: words its runs hold over the bigrams they give. */
function bigramShare(query: string): number {
  let words = 0;
  let bigrams = 0;
  for (const [run] of query.matchAll(CJK_RUN)) {
    const length = [...run].length;
    words += Math.max(1, length / CJK_WORD_CHARS);
    bigrams += length - 1;
  }
  return bigrams > 0 ? words / bigrams : 1;
}

const isBigram = (term: string) => [...term].length === 2 && [...term].every((ch) => CJK_CHAR.test(ch));

/** The best score a section could have for the query (see above); always above 0. */
export function queryCeiling(query: string, plan: Pick<QueryPlan, 'terms' | 'weighted' | 'corrections'>, stats: TermStatistics): number {
  const pages = Math.max(1, stats.pages);
  const rare = idf(Math.max(1, pages / RARE_SHARE), pages);
  const weights = new Map(plan.weighted.map(({ term, weight }) => [term, weight]));
  const corrections = new Map(plan.corrections.map(({ from, to }) => [from, to]));
  const share = bigramShare(query);
  const frequency = new Map<string, number>();
  const df = (term: string) => {
    let value = frequency.get(term);
    if (value === undefined) {
      value = stats.documentFrequency(term);
      frequency.set(term, value);
    }
    return value;
  };
  const worth = (term: string) => (weights.get(term) ?? 0) * Math.min(rare, idf(df(term), pages));
  let total = rare;
  for (const term of plan.terms) {
    const weight = weights.get(term);
    // Past the most terms a query keeps: not searched for, so not expected either.
    if (weight === undefined) continue;
    const known = df(term) > 0;
    const to = corrections.get(term);
    const value = known ? worth(term) : to ? Math.max(0, ...to.map(worth)) : weight * rare;
    // Side remarks (weight below 1) are searched at their weight but expected to match less
    // often still: their part of the best possible score is their weight squared.
    total += value * weight * (isBigram(term) ? share : 1);
  }
  return sectionTermCeiling(total);
}

/** A section score as a share of the query's ceiling, rounded to 0.01 and at most 1. */
export function matchShare(sectionScore: number, ceiling: number): number {
  return Math.min(1, Math.round((sectionScore / ceiling) * 100) / 100);
}
