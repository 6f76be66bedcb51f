// How well the best section answers a query, from 0 to 1, the same way for any language and any
// length of question: the section's evidence as a share of the query's best possible score. A
// raw BM25 score grows with the number of query terms (a Chinese sentence gives a dozen bigrams,
// an English one three stemmed words), so a fixed score threshold let long and Chinese questions
// in and kept short English ones out.
//
// The best possible score is what a section would score if it held every word of the question at
// full strength (sectionTermCeiling), where:
// - each of the question's own terms counts with its idf, a rare term at most as much as a term
//   in one page out of RARE_SHARE (typos are rare and would otherwise dominate), times its weight
//   squared: a term of the question itself counts fully, a side remark of a long message
//   (searched at weight 0.35) about a tenth, since the page that answers the question rarely
//   matches the remarks around it;
// - a term no page has and nothing replaced counts as such a rare term (a question about
//   something the knowledge base never mentions matches little of it); a corrected term counts as
//   its best correction;
// - one more rare term stands for what a very short message leaves unsaid, so "hello" matching a
//   page's greeting is not a perfect match.
//
// CJK text is searched as overlapping character bigrams: "把机器人部署到" gives 把机, 机器, 器人,
// 人部, 部署, 署到, and half of them (人部, 署到) straddle two words. A section holding every word
// of the question need not hold those, and they are rare or unknown, so counting each bigram as a
// word made the best possible score of a Chinese question about twice what it could reach, and a
// section that does hold the phrase got the straddling bigrams on top. So CJK runs are measured
// per character, the way a word counts once in English: each character counts half of one of its
// two bigrams, in the ceiling the commoner one (the likelier word; straddling pairs are rare), in
// the evidence the better-scoring one; a lone character counts as a word. Stop words are left out
// on both sides, as English ones are by the tokenizer. Everything else a section scored (English
// terms, corrections, synonyms) is evidence as it is.
// Calibrated on the grammY golden, short and hard questions (bench/knowledge-threshold.ts).
import { CHINESE_STOP_CHARACTERS, CHINESE_STOP_WORDS } from '../stop-words.ts';
import { CJK_CHAR } from '../tokenizer.ts';
import { idf, sectionTermCeiling } from './bm25.ts';
import type { QueryPlan } from './query.ts';

/** A term in fewer than one page in this many counts no more than that in the best possible score. */
const RARE_SHARE = 16;

const CJK_RUN = new RegExp(`${CJK_CHAR.source}+`, 'gu');

export interface TermStatistics {
  /** Pages in the index. */
  pages: number;
  documentFrequency(term: string): number;
}

/** What one character of a CJK run counts for: a share of one of the terms it is part of. */
interface CharacterPart {
  character: string;
  share: number;
  terms: string[];
}

export interface MatchMeasure {
  /** The best score a section could have for the query (see above); always above 0. */
  ceiling: number;
  /** A section's evidence for the query, from what each term scores in it (0 for terms it lacks). */
  evidence(termScore: (term: string) => number): number;
}

/** Which characters of a CJK run are stop words (alone or as part of a stop word). */
function stopCharacters(run: string, chars: string[]): boolean[] {
  const stop = chars.map((ch) => CHINESE_STOP_CHARACTERS.has(ch));
  for (const word of CHINESE_STOP_WORDS) {
    for (let at = run.indexOf(word); at >= 0; at = run.indexOf(word, at + 1)) {
      const first = [...run.slice(0, at)].length;
      for (let k = 0; k < [...word].length; k++) stop[first + k] = true;
    }
  }
  return stop;
}

/**
 * The characters of the query's CJK runs with the searched terms each may count through, and every
 * term the runs give (measured per character, so not as terms of their own).
 */
function cjkParts(query: string, searched: (term: string) => boolean): { parts: CharacterPart[]; runTerms: Set<string> } {
  const parts: CharacterPart[] = [];
  const runTerms = new Set<string>();
  for (const [run] of query.normalize('NFKC').matchAll(CJK_RUN)) {
    const chars = [...run];
    const stop = stopCharacters(run, chars);
    if (chars.length === 1) {
      runTerms.add(run);
      if (!stop[0] && searched(run)) parts.push({ character: run, share: 1, terms: [run] });
      continue;
    }
    for (let i = 0; i + 1 < chars.length; i++) runTerms.add(chars[i]! + chars[i + 1]!);
    chars.forEach((ch, i) => {
      if (stop[i]) return;
      const near = [i > 0 ? chars[i - 1]! + ch : '', i + 1 < chars.length ? ch + chars[i + 1]! : ''].filter((t) => t && searched(t));
      if (near.length) parts.push({ character: ch, share: 0.5, terms: near });
    });
  }
  return { parts, runTerms };
}

export function matchMeasure(
  query: string,
  plan: Pick<QueryPlan, 'terms' | 'weighted' | 'corrections'>,
  stats: TermStatistics,
): MatchMeasure {
  const pages = Math.max(1, stats.pages);
  const rare = idf(Math.max(1, pages / RARE_SHARE), pages);
  const weights = new Map(plan.weighted.map(({ term, weight }) => [term, weight]));
  const corrections = new Map(plan.corrections.map(({ from, to }) => [from, to]));
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
  // What one of the query's own terms adds to the best possible score.
  const expected = (term: string, weight: number) => {
    const to = corrections.get(term);
    const value = df(term) > 0 ? worth(term) : to ? Math.max(0, ...to.map(worth)) : weight * rare;
    // Side remarks (weight below 1) are searched at their weight but expected to match less
    // often still: their part of the best possible score is their weight squared.
    return value * weight;
  };

  const { parts, runTerms } = cjkParts(query, (term) => weights.has(term));
  let total = rare;
  for (const term of plan.terms) {
    const weight = weights.get(term);
    // Past the most terms a query keeps: not searched for, so not expected either.
    if (weight === undefined || runTerms.has(term)) continue;
    total += expected(term, weight);
  }
  // A character read as part of the same word counts once, however often the message repeats it
  // (as an English word does): grouped by the character and the term it is expected through.
  const words = new Map<string, { share: number; parts: CharacterPart[] }>();
  for (const part of parts) {
    const values = part.terms.map((term) => expected(term, weights.get(term)!));
    const value = Math.min(...values);
    const key = `${part.character}\u0000${part.terms[values.indexOf(value)]}`;
    const word = words.get(key);
    if (word) word.parts.push(part);
    else {
      words.set(key, { share: part.share, parts: [part] });
      total += part.share * value;
    }
  }

  return {
    ceiling: sectionTermCeiling(total),
    evidence(termScore) {
      let sum = 0;
      for (const { term } of plan.weighted) if (!runTerms.has(term)) sum += termScore(term);
      for (const { share, parts: each } of words.values()) sum += share * Math.max(...each.flatMap((part) => part.terms.map(termScore)));
      return sum;
    },
  };
}

/** Evidence as a share of the ceiling, rounded to 0.01 and at most 1. */
export function matchShare(evidence: number, ceiling: number): number {
  return Math.min(1, Math.round((evidence / ceiling) * 100) / 100);
}
