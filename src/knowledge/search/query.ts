// From a message to weighted search terms, without a model:
// - in a message of several sentences, the question ("How do I ...?", "怎么...") counts fully
//   and the side remarks around it ("sorry if this is a dumb question", "thanks!") count less;
// - words the index does not know are read as the closest known terms (fuzzy.ts);
// - synonyms from the list (synonyms.ts) are searched for too, at a lower weight (across
//   languages lower still, so a page in the question's language stays first).
// Identifiers (bot.api.sendMessage, parse_mode) are split by the tokenizer itself.
import type { Tokenize } from '../tokenizer.ts';
import type { WeightedTerm } from './first-pass.ts';
import { allowedEdits, corrections as closestTerms, type VocabularySource } from './fuzzy.ts';
import type { SynonymTable } from './synonyms.ts';

export interface QueryPlan {
  /** The query's own terms, in order, each once. */
  terms: string[];
  /** Every term searched for, with its weight. */
  weighted: WeightedTerm[];
  /** Words the index does not know, and the known terms they were read as. */
  corrections: { from: string; to: string[] }[];
  /** Terms added from the synonym list. */
  synonyms: { from: string; added: string[] }[];
  /** Query terms the index does not know and that nothing replaced. */
  dropped: string[];
}

export interface QueryContext {
  tokenize: Tokenize;
  /** The index's vocabulary; without one, no corrections. */
  vocabulary?: VocabularySource;
  synonyms?: SynonymTable;
}

/** Long messages contribute at most this many distinct terms (the question's first, then the rarest). */
const MAX_QUERY_TERMS = 32;
/** A term only in the side remarks of a longer message counts this much. */
export const SIDE_REMARK_WEIGHT = 0.35;
/** A correction counts this much per edit it needed less than two (one edit: 0.8; two: 0.6). */
const CORRECTION_WEIGHT = [1, 0.8, 0.6];
/** Messages with fewer terms than this are taken whole. */
const MIN_TERMS_TO_WEIGH = 8;

// Sentence ends: . ! ? followed by a space or the end (so "bot.api" and "v1.2" stay whole), the
// CJK full stops, and line breaks.
const SENTENCE_END = /(?<=[.!?…])\s+|(?<=[。！？])|\n+/u;
const QUESTION_MARK = /[?？]\s*$/;
const ENGLISH_QUESTION =
  /^\s*(?:(?:hi|hey|hello|so|ok|okay|well|also|and|but|quick question|question)[,:!\s]+)*(?:how|what|why|where|when|which|who|whom|whose|can|could|is|are|am|does|do|did|should|would|will|shall|may|might|any|anyone|anybody|has|have|was|were|isn't|aren't|doesn't|don't|can't|won't)\b/i;
const ENGLISH_REQUEST =
  /\b(?:how (?:do|can|to|should)|is there a way|i (?:want|need|would like|'d like) to|trying to|looking for|help me)\b/i;
const CHINESE_QUESTION = /[吗呢嘛]|怎么|怎样|如何|为什么|为何|什么|哪些|哪个|哪里|能否|能不能|可不可以|可以吗|是否|请问|求助|有没有/u;

function isQuestion(sentence: string): boolean {
  return (
    QUESTION_MARK.test(sentence) || ENGLISH_QUESTION.test(sentence) || ENGLISH_REQUEST.test(sentence) || CHINESE_QUESTION.test(sentence)
  );
}

/** Each term of the message with its weight: 1 in a question, SIDE_REMARK_WEIGHT elsewhere (when there is a question among other sentences). */
export function weighTerms(message: string, tokenize: Tokenize): Map<string, number> {
  const sentences = message.split(SENTENCE_END).filter((s) => s.trim());
  const perSentence = sentences.map((sentence) => ({ terms: tokenize(sentence), question: isQuestion(sentence) }));
  const total = new Set(perSentence.flatMap((s) => s.terms)).size;
  const weigh =
    perSentence.length > 1 && total >= MIN_TERMS_TO_WEIGH && perSentence.some((s) => s.question) && perSentence.some((s) => !s.question);
  const weights = new Map<string, number>();
  for (const { terms, question } of perSentence) {
    const weight = !weigh || question ? 1 : SIDE_REMARK_WEIGHT;
    for (const term of terms) weights.set(term, Math.max(weights.get(term) ?? 0, weight));
  }
  return weights;
}

export function planQuery(query: string, context: QueryContext): QueryPlan {
  const own = weighTerms(query, context.tokenize);
  const terms = [...own.keys()];
  const vocabulary = context.vocabulary;
  const frequency = new Map<string, number>();
  const df = (term: string) => {
    let value = frequency.get(term);
    if (value === undefined) {
      value = vocabulary?.documentFrequency(term) ?? 0;
      frequency.set(term, value);
    }
    return value;
  };

  // Keep the question's terms first, then the rarest.
  let kept = terms;
  if (kept.length > MAX_QUERY_TERMS) {
    kept = [...kept].sort((a, b) => own.get(b)! - own.get(a)! || (df(a) || Infinity) - (df(b) || Infinity)).slice(0, MAX_QUERY_TERMS);
  }
  const weights = new Map(kept.map((term) => [term, own.get(term)!]));

  const corrected: QueryPlan['corrections'] = [];
  const dropped: string[] = [];
  if (vocabulary) {
    for (const term of kept) {
      if (df(term) > 0) continue;
      const found = allowedEdits(term.length) > 0 ? closestTerms(forms(term, query), vocabulary) : [];
      if (found.length === 0) {
        dropped.push(term);
        continue;
      }
      const base = weights.get(term)!;
      found.forEach((c, i) => {
        const weight = base * CORRECTION_WEIGHT[c.distance]! * (i === 0 ? 1 : 0.5);
        if ((weights.get(c.term) ?? 0) < weight) weights.set(c.term, weight);
      });
      corrected.push({ from: term, to: found.map((c) => c.term) });
    }
  }

  const synonyms: QueryPlan['synonyms'] = [];
  if (context.synonyms) {
    const bySource = new Map<string, string[]>();
    for (const [term, { weight, from }] of context.synonyms.expand(weights)) {
      if ((weights.get(term) ?? 0) >= weight) continue;
      weights.set(term, weight);
      bySource.set(from, [...(bySource.get(from) ?? []), term]);
    }
    for (const [from, added] of bySource) synonyms.push({ from, added });
  }

  const weighted = [...weights].map(([term, weight]) => ({ term, weight }));
  return { terms, weighted, corrections: corrected, synonyms, dropped };
}

/** The forms an unknown term may have in the vocabulary: itself, and the word it was stemmed from. */
function forms(term: string, query: string): string[] {
  const out = [term];
  const lower = query.toLowerCase();
  // The stemmer shortens words ("tranlsate" → "tranlsat"); the written word may be closer to a known stem.
  const at = lower.indexOf(term);
  if (at >= 0) {
    const word = /^[a-z]+/.exec(lower.slice(at))?.[0];
    if (word && word !== term) out.push(word);
  }
  return out;
}
