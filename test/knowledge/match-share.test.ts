// The match share (src/knowledge/search/match.ts) means the same in English and Chinese: a section
// that holds the same words of a question gets the same share whichever language the question
// and the section are in, although the Chinese question is searched as overlapping character
// bigrams (half of which straddle two words) and the English one as stemmed words.
import { describe, expect, it } from 'vitest';
import { idf, sectionTermScore } from '../../src/knowledge/search/bm25.ts';
import { matchMeasure, matchShare, type TermStatistics } from '../../src/knowledge/search/match.ts';
import { planQuery } from '../../src/knowledge/search/query.ts';
import { createTokenizer } from '../../src/knowledge/tokenizer.ts';

const tokenize = createTokenizer();
const PAGES = 100;

/** The same words in both languages, in as many pages each; every other term (straddling bigrams included) as given. */
function statistics(others = 0): TermStatistics {
  const df: Record<string, number> = { store: 6, 保存: 6, user: 20, 用户: 20, data: 10, 数据: 10 };
  return { pages: PAGES, documentFrequency: (term) => df[term] ?? others };
}

/** What a term scores in a section of average length that holds it once. */
const once = (stats: TermStatistics) => (term: string) => sectionTermScore(idf(stats.documentFrequency(term), PAGES), 1, 50, 50);

/** The match of a section in which exactly the `held` terms occur once. */
function share(query: string, held: string[], stats = statistics()): { match: number; ceiling: number } {
  const plan = planQuery(query, { tokenize });
  const measure = matchMeasure(query, plan, stats);
  const score = once(stats);
  return {
    match: matchShare(
      measure.evidence((term) => (held.includes(term) ? score(term) : 0)),
      measure.ceiling,
    ),
    ceiling: measure.ceiling,
  };
}

describe('the match share', () => {
  it('is the same for a Chinese and an English question when the section holds the same words', () => {
    const en = share('store user data', ['store', 'user', 'data']);
    const zh = share('保存用户数据', ['保存', '用户', '数据']);
    expect(en.match).toBeGreaterThan(0.2);
    expect(en.match).toBeLessThan(1);
    expect(zh.match).toBe(en.match);
    expect(zh.ceiling).toBeCloseTo(en.ceiling, 9);
  });

  it('does not count the bigrams that straddle two words as words the section should hold', () => {
    // Unknown straddling bigrams (么保, 存用, 户数) and known but rare ones give the same best possible score as English.
    const en = share('store user data', []).ceiling;
    expect(share('保存用户数据', [], statistics(0)).ceiling).toBeCloseTo(en, 9);
    expect(share('保存用户数据', [], statistics(1)).ceiling).toBeCloseTo(en, 9);
  });

  it('gives the same share when the section holds only part of the question, in either language', () => {
    const en = share('store user data', ['store']);
    const zh = share('保存用户数据', ['保存']);
    expect(en.match).toBeGreaterThan(0);
    expect(zh.match).toBe(en.match);
    expect(en.match).toBeLessThan(share('store user data', ['store', 'user', 'data']).match);
  });

  it('leaves out stop words and repeated words in Chinese, as the tokenizer does in English', () => {
    const plain = share('保存用户数据', ['保存', '用户', '数据']).match;
    expect(share('怎么保存用户的数据', ['保存', '用户', '数据']).match).toBe(plain);
    expect(share('用户数据 用户数据 保存', ['保存', '用户', '数据']).match).toBe(plain);
    expect(share('how do I store my user data', ['store', 'user', 'data']).match).toBe(
      share('store user data', ['store', 'user', 'data']).match,
    );
  });

  it('counts a section that holds the whole Chinese phrase no less than one holding its words apart', () => {
    const stats = statistics(1);
    const apart = share('保存用户数据', ['保存', '用户', '数据'], stats).match;
    const phrase = share('保存用户数据', ['保存', '存用', '用户', '户数', '数据'], stats).match;
    expect(phrase).toBeGreaterThanOrEqual(apart);
    expect(phrase).toBeLessThanOrEqual(1);
  });
});
