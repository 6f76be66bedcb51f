// Turns text into search terms, the same way for pages and queries, for English and CJK alike.
// Latin text: NFKC, lower case, identifiers split on punctuation and camelCase (the whole
// identifier is kept too), stop words and single letters dropped, Porter stemming. CJK text has no
// spaces: runs of Han/kana/Hangul become overlapping character bigrams (a lone character stays a
// unigram). On the grammY golden set bigrams rank at least as well as ICU's dictionary words
// (`cjk: 'words'`, compared by `npm run bench -- knowledge`), which split 点击 or 中间件 wrongly.
import { stemmer } from 'stemmer';
import { ENGLISH_STOP_WORDS } from './stop-words.ts';

export type CjkMode = 'bigrams' | 'words';

export interface TokenizerOptions {
  /** How CJK runs become terms (default `bigrams`; `words` uses ICU word segmentation). */
  cjk?: CjkMode;
}

export type Tokenize = (text: string) => string[];

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー]+/gu;
// Words, with identifier punctuation inside them kept (bot.api.sendMessage, user_id, v1.2).
const WORD = /[\p{L}\p{N}_]+(?:[.\-/:@#$][\p{L}\p{N}_]+)*/gu;
const IDENTIFIER_PUNCTUATION = /[.\-/:@#$_]+/;
const CAMEL_CASE = /[A-Z]/;
const CAMEL_BOUNDARY = /(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;
const ASCII_LETTERS = /^[a-z]+$/;
const MAX_TERM_LENGTH = 40;

const icuWords = new Intl.Segmenter('und', { granularity: 'word' });

export function createTokenizer(options: TokenizerOptions = {}): Tokenize {
  const cjk = options.cjk ?? 'bigrams';
  const stems = new Map<string, string>();

  const term = (word: string, out: string[]): void => {
    const lower = word.toLowerCase();
    if (lower.length < 2 && !/\d/.test(lower)) return;
    if (lower.length > MAX_TERM_LENGTH || ENGLISH_STOP_WORDS.has(lower)) return;
    if (!ASCII_LETTERS.test(lower)) {
      out.push(lower);
      return;
    }
    let stemmed = stems.get(lower);
    if (stemmed === undefined) {
      stemmed = stemmer(lower);
      if (stems.size < 100_000) stems.set(lower, stemmed);
    }
    out.push(stemmed);
  };

  const latin = (stretch: string, out: string[]): void => {
    for (const [word] of stretch.matchAll(WORD)) {
      const compound = IDENTIFIER_PUNCTUATION.test(word);
      if (!compound && !CAMEL_CASE.test(word)) {
        term(word, out);
        continue;
      }
      let parts = 0;
      for (const piece of word.split(IDENTIFIER_PUNCTUATION)) {
        for (const part of piece.split(CAMEL_BOUNDARY)) {
          if (!part) continue;
          term(part, out);
          parts++;
        }
      }
      // Identifiers are also kept whole ("sendmessage", "ctx.reply") so exact queries rank first.
      if (parts > 1 && word.length <= MAX_TERM_LENGTH) out.push(word.toLowerCase());
    }
  };

  const bigrams = (run: string, out: string[]): void => {
    const chars = [...run];
    if (chars.length === 1) out.push(run);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  };

  const words = (run: string, out: string[]): void => {
    for (const { segment, isWordLike } of icuWords.segment(run)) if (isWordLike) out.push(segment);
  };

  return (text: string): string[] => {
    const out: string[] = [];
    const normalised = text.normalize('NFKC');
    // CJK runs are taken whole: a bigram across a wrong ICU split (点|击, 中间|件) still matches.
    let last = 0;
    for (const match of normalised.matchAll(CJK_RUN)) {
      if (match.index > last) latin(normalised.slice(last, match.index), out);
      if (cjk === 'words') words(match[0], out);
      else bigrams(match[0], out);
      last = match.index + match[0].length;
    }
    if (last < normalised.length) latin(normalised.slice(last), out);
    return out;
  };
}

/** The tokenizer Parley uses for pages and queries. */
export const tokenize: Tokenize = createTokenizer();
