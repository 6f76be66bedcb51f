// Turns text into search terms, the same way for pages and queries, for English and CJK alike.
// Latin text: NFKC, lower case, identifiers split on punctuation and camelCase (the whole
// identifier is kept too, and so is each camelCase piece: "bot.api.sendMessage" also gives
// "sendmessage", "parse_mode" also "parsemode"), stop words and single letters dropped, Porter
// stemming. CJK text has no spaces: runs of Han/kana/Hangul become overlapping character bigrams
// (a lone character stays a unigram). On the grammY golden set bigrams rank at least as well as
// ICU's dictionary words (`cjk: 'words'`), which split 点击 or 中间件 wrongly.
// Indexing tokenises every page, so this is a hand-written scanner over character codes (the
// character classes are the Unicode properties below, looked up once per distinct character).
import { stemmer } from 'stemmer';
import { ENGLISH_STOP_WORDS } from './stop-words.ts';
import { hashSpan, WordTable } from './word-table.ts';

type CjkMode = 'bigrams' | 'words';

export interface TokenizerOptions {
  /** How CJK runs become terms (default `bigrams`; `words` uses ICU word segmentation). */
  cjk?: CjkMode;
}

export type Tokenize = (text: string) => string[];
/** A tokenizer that can also stream its terms as interned objects (what indexing uses). */
export type Tokenizer = Tokenize & {
  scan(text: string, sink: TermSink): void;
  /** Forgets the interned terms when there are many (call between documents, never during one). */
  trim(): void;
};
/**
 * A term, interned: the same text is the same object (until trim()), so an indexer can keep its
 * own per-term state on it instead of looking the text up in maps.
 */
export interface Term {
  readonly text: string;
  /** Scratch state of the indexer using the term (see indexed-page.ts and knowledge-index.ts). */
  page: number;
  slot: number;
  idOwner: number;
  id: number;
}

/** Receives each term in text order. */
type TermSink = (term: Term) => void;

const MAX_TERM_LENGTH = 40;
const MAX_INTERNED = 300_000;

// Character classes.
const OTHER = 1;
const WORD = 2; // letters, digits, underscore
const JOINER = 3; // . - / : @ # $ inside an identifier
const CJK = 4;
/** A Han, kana or Hangul character (or the long-vowel mark): text without spaces between words. */
export const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー]/u;
const WORD_CHAR = /[\p{L}\p{N}_]/u;
const classes = new Uint8Array(0x10000);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  classes[c] = /[A-Za-z0-9_]/.test(ch) ? WORD : '.-/:@#$'.includes(ch) ? JOINER : OTHER;
}

function classOf(text: string, at: number): number {
  const code = text.charCodeAt(at);
  let cls = classes[code]!;
  if (cls !== 0) return cls;
  if (isPair(text, at)) {
    const ch = String.fromCodePoint(text.codePointAt(at)!);
    return CJK_CHAR.test(ch) ? CJK : WORD_CHAR.test(ch) ? WORD : OTHER;
  }
  const ch = String.fromCharCode(code);
  cls = code >= 0xd800 && code <= 0xdfff ? OTHER : CJK_CHAR.test(ch) ? CJK : WORD_CHAR.test(ch) ? WORD : OTHER;
  // A high surrogate's class depends on what follows it: never cached.
  if (code < 0xd800 || code > 0xdbff) classes[code] = cls;
  return cls;
}

const isPair = (text: string, at: number) => {
  const code = text.charCodeAt(at);
  if (code < 0xd800 || code > 0xdbff) return false;
  const next = text.charCodeAt(at + 1);
  return next >= 0xdc00 && next <= 0xdfff;
};
const charLength = (text: string, at: number) => (isPair(text, at) ? 2 : 1);

const isUpper = (code: number) => code >= 65 && code <= 90;
const isLowerOrDigit = (code: number) => (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
const ASCII_LETTERS = /^[a-z]+$/;
const EDGE_UNDERSCORES = /^_+|_+$/g;

/** Splits "sendMessage" → send, Message; "HTMLParser" → HTML, Parser (ASCII camelCase only, as before). */
function camelParts(piece: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i < piece.length; i++) {
    const prev = piece.charCodeAt(i - 1);
    const code = piece.charCodeAt(i);
    const next = piece.charCodeAt(i + 1);
    if ((isUpper(code) && isLowerOrDigit(prev)) || (isUpper(prev) && isUpper(code) && next >= 97 && next <= 122)) {
      parts.push(piece.slice(start, i));
      start = i;
    }
  }
  parts.push(piece.slice(start));
  return parts;
}

export function createTokenizer(options: TokenizerOptions = {}): Tokenizer {
  const cjk = options.cjk ?? 'bigrams';
  const icuWords = cjk === 'words' ? new Intl.Segmenter('und', { granularity: 'word' }) : undefined;

  // Term text → its object; word as written → its term (null when it is dropped); plain words
  // (lower-case ASCII letters and digits) and character pairs are found without making a string.
  let byText = new Map<string, Term>();
  let byWord = new Map<string, Term | null>();
  const plainWords = new WordTable<Term | null>();
  const pairs = new WordTable<Term>();
  // Identifier as written → the terms it gives, in order (splitting one is most of its cost, and
  // pages repeat theirs: ctx.reply, bot.api.sendMessage).
  let byIdentifier = new Map<string, Term[]>();
  const intern = (text: string): Term => {
    let found = byText.get(text);
    if (!found) {
      found = { text, page: 0, slot: 0, idOwner: 0, id: 0 };
      byText.set(text, found);
    }
    return found;
  };
  const termOf = (word: string): Term | null => {
    const lower = word.toLowerCase();
    if (lower.length < 2 && !/\d/.test(lower)) return null;
    if (lower.length > MAX_TERM_LENGTH || ENGLISH_STOP_WORDS.has(lower)) return null;
    return intern(ASCII_LETTERS.test(lower) ? stemmer(lower) : lower);
  };
  const term = (word: string, sink: TermSink): void => {
    let found = byWord.get(word);
    if (found === undefined) {
      found = termOf(word);
      byWord.set(word, found);
    }
    if (found) sink(found);
  };
  const plainWord = (text: string, start: number, end: number, sink: TermSink): void => {
    const hash = hashSpan(text, start, end);
    let found = plainWords.get(text, start, end, hash);
    if (found === undefined) {
      const word = text.slice(start, end);
      found = termOf(word);
      plainWords.set(word, hash, found);
    }
    if (found) sink(found);
  };
  const pair = (text: string, at: number, sink: TermSink): void => {
    const hash = hashSpan(text, at, at + 2);
    let found = pairs.get(text, at, at + 2, hash);
    if (!found) {
      found = intern(text.slice(at, at + 2));
      pairs.set(found.text, hash, found);
    }
    sink(found);
  };
  const trim = (): void => {
    if (byText.size + byWord.size + plainWords.size + byIdentifier.size <= MAX_INTERNED) return;
    byText = new Map();
    byWord = new Map();
    pairs.clear();
    byIdentifier = new Map();
    plainWords.clear();
  };

  const identifier = (word: string, sink: TermSink): void => {
    let terms = byIdentifier.get(word);
    if (!terms) {
      const found: Term[] = [];
      splitIdentifier(word, (term) => found.push(term));
      terms = found;
      byIdentifier.set(word, terms);
    }
    for (const term of terms) sink(term);
  };

  const splitIdentifier = (word: string, sink: TermSink): void => {
    const pieces: string[] = [];
    let start = 0;
    let punctuated = false;
    let onlyUnderscoreOrDash = true;
    for (let i = 0; i <= word.length; i++) {
      const code = i < word.length ? word.charCodeAt(i) : 0;
      const separator = i === word.length || code === 95 || classes[code] === JOINER;
      if (!separator) continue;
      if (i < word.length) {
        punctuated = true;
        if (code !== 95 && code !== 45) onlyUnderscoreOrDash = false;
      }
      if (i > start) pieces.push(word.slice(start, i));
      start = i + 1;
    }
    let parts = 0;
    for (const piece of pieces) {
      const split = camelParts(piece);
      for (const part of split) {
        term(part, sink);
        parts++;
      }
      // A camelCase piece inside a longer identifier is kept whole too ("sendmessage").
      if (split.length > 1 && pieces.length > 1 && piece.length <= MAX_TERM_LENGTH) sink(intern(piece.toLowerCase()));
    }
    // Identifiers are also kept whole ("bot.api.sendmessage", "ctx.reply") so exact queries rank first,
    // and snake/kebab case joined ("parse_mode" → "parsemode", as "parseMode" gives).
    if (parts > 1 && word.length <= MAX_TERM_LENGTH) {
      sink(intern(word.toLowerCase()));
      if (punctuated && onlyUnderscoreOrDash && pieces.length > 1) sink(intern(pieces.join('').toLowerCase()));
    }
  };

  /** The CJK run text[start, end) as terms; `pairs` when it holds only basic-plane characters. */
  const cjkRun = (text: string, start: number, end: number, basic: boolean, sink: TermSink): void => {
    if (basic && !icuWords) {
      if (end - start === 1) sink(intern(text.slice(start, end)));
      for (let i = start; i + 1 < end; i++) pair(text, i, sink);
      return;
    }
    const run = text.slice(start, end);
    if (icuWords) {
      for (const { segment, isWordLike } of icuWords.segment(run)) if (isWordLike) sink(intern(segment));
      return;
    }
    const chars = [...run];
    if (chars.length === 1) sink(intern(run));
    for (let i = 0; i + 1 < chars.length; i++) sink(intern(chars[i]! + chars[i + 1]!));
  };

  const scan = (input: string, sink: TermSink): void => {
    const text = input.normalize('NFKC');
    const n = text.length;
    let i = 0;
    while (i < n) {
      const code = text.charCodeAt(i);
      const cls = code < 128 ? classes[code]! : classOf(text, i);
      if (cls === WORD) {
        // A word: word characters, with single joiners between them (bot.api.sendMessage, v1.2, a/b).
        const start = i;
        let hasJoiner = false;
        // Upper case after the first letter makes an identifier (camelCase); a capital first letter does not.
        let upper = false;
        let plain = code < 128 && code !== 95;
        i += charLength(text, i);
        for (;;) {
          while (i < n) {
            const c = text.charCodeAt(i);
            if (c < 128) {
              if (classes[c] !== WORD) break;
              if (c >= 65 && c <= 90) upper = true;
              else if (c === 95) plain = false;
              i++;
            } else if (classOf(text, i) === WORD) {
              plain = false;
              i += charLength(text, i);
            } else break;
          }
          if (i + 1 < n && text.charCodeAt(i) < 128 && classes[text.charCodeAt(i)] === JOINER && classOf(text, i + 1) === WORD) {
            hasJoiner = true;
            i++;
            continue;
          }
          break;
        }
        if (plain && !hasJoiner && !upper) {
          plainWord(text, start, i, sink);
          continue;
        }
        if (code >= 65 && code <= 90) upper = true;
        let w = text.slice(start, i);
        // Underscores around a word are emphasis (_like this_), not part of an identifier.
        if (w.charCodeAt(0) === 95 || w.charCodeAt(w.length - 1) === 95) w = w.replace(EDGE_UNDERSCORES, '');
        if (!w) continue;
        if (!hasJoiner && !upper && w.indexOf('_') < 0) term(w, sink);
        else identifier(w, sink);
      } else if (cls === CJK) {
        const start = i;
        let basic = true;
        while (i < n) {
          const c = text.charCodeAt(i);
          if (c >= 0xd800 && c <= 0xdfff) {
            if (classOf(text, i) !== CJK) break;
            basic = false;
            i += charLength(text, i);
          } else if ((classes[c] || classOf(text, i)) === CJK) i++;
          else break;
        }
        cjkRun(text, start, i, basic, sink);
      } else {
        i += charLength(text, i);
      }
    }
  };

  const tokenize = (text: string): string[] => {
    trim();
    const out: string[] = [];
    scan(text, (t) => out.push(t.text));
    return out;
  };
  return Object.assign(tokenize, { scan, trim });
}

/** The tokenizer Parley uses for pages and queries. */
export const defaultTokenizer: Tokenizer = createTokenizer();
export const tokenize: Tokenize = (text) => defaultTokenizer(text);
