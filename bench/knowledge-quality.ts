// Retrieval quality: recall@5 and MRR@10 of a ranking function on the golden questions (per
// language) and on the hard development set (per kind).
import { GOLDEN_QUESTIONS } from './knowledge-golden.ts';
import { HARD_KINDS, HARD_QUESTIONS, type HardQuestion } from './knowledge-hard.ts';

/** Slugs of the best `limit` pages, best first (recall@5 asks for 5, MRR@10 for 10: a search's results depend on how many it shows). */
export type Rank = (query: string, limit: number) => Promise<string[]> | string[];

export interface Quality {
  questions: number;
  recall5: number;
  mrr10: number;
  /** Questions whose answer was not in the top 5. */
  misses: string[];
}

interface Case {
  query: string;
  wanted: string[];
}

async function measure(cases: Case[], rank: Rank): Promise<Quality> {
  let found = 0;
  let reciprocal = 0;
  const misses: string[] = [];
  for (const { query, wanted } of cases) {
    const inFive = (await rank(query, 5)).slice(0, 5).some((slug) => wanted.includes(slug));
    const position = (await rank(query, 10)).slice(0, 10).findIndex((slug) => wanted.includes(slug));
    if (inFive) found++;
    else misses.push(query);
    if (position >= 0) reciprocal += 1 / (position + 1);
  }
  const n = Math.max(1, cases.length);
  return { questions: cases.length, recall5: found / n, mrr10: reciprocal / n, misses };
}

export function goldenQuality(lang: 'en' | 'zh', rank: Rank): Promise<Quality> {
  return measure(
    GOLDEN_QUESTIONS.map((q) => ({ query: q[lang], wanted: q.answers.map((a) => `${lang}/${a}`) })),
    rank,
  );
}

const hardCase = (q: HardQuestion): Case => ({ query: q.q, wanted: q.answers.map((a) => `${q.lang}/${a}`) });

/** Quality per kind of the hard set, plus the whole set under "all". */
export async function hardQuality(rank: Rank): Promise<Map<string, Quality>> {
  const out = new Map<string, Quality>();
  for (const kind of HARD_KINDS) out.set(kind, await measure(HARD_QUESTIONS.filter((q) => q.kind === kind).map(hardCase), rank));
  out.set('all', await measure(HARD_QUESTIONS.map(hardCase), rank));
  return out;
}
