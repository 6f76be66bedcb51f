// A deterministic generator of knowledge pages for the scale benchmark: page `n` of a base is the
// same on every run and machine (seeded PRNG per page). Pages are English or Chinese (3 : 2),
// Markdown with a title, a summary, tags, sections with ## and ### headings, paragraphs, lists and
// code blocks. English words are drawn from the grammY corpus's own frequencies, Chinese text from
// its clauses (so the character bigrams are those of real text), so query terms have realistic
// document frequencies; a long tail of made-up words and rare two-character words (8% of words,
// log-uniform over 5 million) makes the vocabulary keep growing with the page count (Heaps' law,
// exponent about 0.5; the corpus's own is about 0.6). Sizes are log-normal: median 3.5 KB, mean
// about 5.5 KB, one page in ten above 10 KB, clipped to 300 B-60 KB (the corpus: median 6.5 KB).
import type { KnowledgePageRecord } from '../src/store/repos/knowledge.ts';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

interface Distribution {
  items: string[];
  cumulative: Float64Array;
}

function distribution(counts: Map<string, number>, minCount = 1): Distribution {
  const entries = [...counts].filter(([, c]) => c >= minCount).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const cumulative = new Float64Array(entries.length);
  let sum = 0;
  for (const [i, [, c]] of entries.entries()) {
    sum += c;
    cumulative[i] = sum;
  }
  for (let i = 0; i < cumulative.length; i++) cumulative[i]! /= sum;
  return { items: entries.map(([w]) => w), cumulative };
}

function draw(d: Distribution, u: number): string {
  let lo = 0;
  let hi = d.cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (d.cumulative[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return d.items[lo]!;
}

const SYLLABLES =
  'ba be bi bo bu da de di do du fa fe fi fo ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo za ze zi zo'.split(
    ' ',
  );
const RARE_CHARS = 20_000;
// The long tail: word number 5,000,000^u for uniform u.
const TAIL_WORDS = 5_000_000;
const RARE_SHARE = 0.08;

/** Made-up word number `k` (2-4 syllables, an ending sometimes). */
function rareWord(k: number): string {
  let word = '';
  let rest = k;
  do {
    word += SYLLABLES[rest % SYLLABLES.length];
    rest = Math.floor(rest / SYLLABLES.length);
  } while (rest > 0);
  return word.length < 4 ? `${word}n` : word;
}

export interface GeneratorBase {
  english: Distribution;
  identifiers: Distribution;
  chinese: Distribution;
  tags: string[];
}

/** Word, identifier and character frequencies of the given (corpus) pages. */
export function generatorBase(corpus: KnowledgePageRecord[]): GeneratorBase {
  const english = new Map<string, number>();
  const identifiers = new Map<string, number>();
  const chinese = new Map<string, number>();
  const tags = new Set<string>();
  for (const page of corpus) {
    const text = `${page.title}\n${page.summary}\n${page.content}`;
    for (const [word] of text.matchAll(/\b[A-Za-z][a-z]{1,14}\b/g))
      english.set(word.toLowerCase(), (english.get(word.toLowerCase()) ?? 0) + 1);
    for (const [id] of text.matchAll(/\b[a-z]+(?:[A-Z][a-z]+)+\b|\b[a-z]+(?:\.[a-z][A-Za-z]+)+\b|\b[a-z]+_[a-z_]+\b/g))
      identifiers.set(id, (identifiers.get(id) ?? 0) + 1);
    for (const [clause] of text.matchAll(/[\u4e00-\u9fff][^，。；：！？、\n`*#|()（）[\]]*/g))
      chinese.set(clause.trim(), (chinese.get(clause.trim()) ?? 0) + 1);
    for (const part of page.slug.split('/').slice(1)) tags.add(part);
  }
  return { english: distribution(english), identifiers: distribution(identifiers), chinese: distribution(chinese), tags: [...tags].sort() };
}

/** Page `n`: English or Chinese, about `size(n)` bytes of Markdown. */
export function generatedPage(base: GeneratorBase, n: number, id = `g${String(n).padStart(9, '0')}`): KnowledgePageRecord {
  const next = random(n * 2_654_435_761 + 97);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  const chinese = next() < 0.4;
  // Log-normal size: exp(N(ln 3500, 0.85)), by Box-Muller.
  const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  const target = Math.round(Math.min(60_000, Math.max(300, Math.exp(Math.log(3_500) + 0.85 * normal))));

  const tail = () => Math.floor(TAIL_WORDS ** next());
  const word = () => {
    if (next() < RARE_SHARE) return rareWord(tail());
    if (next() < 0.03) return draw(base.identifiers, next());
    return draw(base.english, next());
  };
  const hanzi = () => {
    if (next() >= RARE_SHARE) return draw(base.chinese, next());
    const k = tail();
    return String.fromCharCode(0x4e00 + (k % RARE_CHARS), 0x4e00 + (Math.floor(k / RARE_CHARS) % RARE_CHARS));
  };
  const sentence = () => {
    if (chinese) {
      let s = '';
      const clauses = 1 + Math.floor(next() * 3);
      for (let i = 0; i < clauses; i++) {
        if (i > 0) s += '，';
        s += hanzi();
        if (next() < 0.2) s += ` ${draw(base.identifiers, next())} `;
      }
      return `${s}。`;
    }
    const words = Array.from({ length: 5 + Math.floor(next() * 18) }, word);
    if (next() < 0.15) words[Math.floor(next() * words.length)] = `\`${draw(base.identifiers, next())}\``;
    const s = words.join(' ');
    return `${s[0]!.toUpperCase()}${s.slice(1)}${next() < 0.1 ? '?' : '.'}`;
  };
  const phrase = (words: number) => (chinese ? hanzi().slice(0, words * 3) : Array.from({ length: words }, word).join(' '));
  const heading = () => {
    const h = phrase(2 + Math.floor(next() * 4));
    return chinese ? h : h.replace(/^\w/, (c) => c.toUpperCase());
  };
  const paragraph = () => Array.from({ length: 1 + Math.floor(next() * 5) }, sentence).join(chinese ? '' : ' ');
  const block = () => {
    const kind = next();
    if (kind < 0.12)
      return [
        '```ts',
        ...Array.from({ length: 2 + Math.floor(next() * 8) }, () => `${draw(base.identifiers, next())}(${JSON.stringify(phrase(2))});`),
        '```',
      ].join('\n');
    if (kind < 0.25) return Array.from({ length: 2 + Math.floor(next() * 5) }, () => `- ${sentence()}`).join('\n');
    return paragraph();
  };

  const title = heading();
  const summary = sentence();
  const parts = [`# ${title}`, paragraph()];
  let size = Buffer.byteLength(parts.join('\n\n'));
  while (size < target) {
    const section = [`${next() < 0.25 ? '###' : '##'} ${heading()}`];
    for (let blocks = 1 + Math.floor(next() * 3); blocks > 0 && size < target; blocks--) {
      const text = block();
      section.push(text);
      size += Buffer.byteLength(text) + 2;
    }
    parts.push(section.join('\n\n'));
    size += Buffer.byteLength(section[0]!) + 2;
  }
  const tags = Array.from({ length: Math.floor(next() * 4) }, () => pick(base.tags));
  const now = new Date(Date.UTC(2025, 0, 1));
  return {
    id,
    slug: `${chinese ? 'zh' : 'en'}/generated/${n}`,
    title,
    summary,
    content: parts.join('\n\n'),
    tags: [...new Set(tags)],
    references: [],
    source: 'import',
    revision: 1,
    hash: '',
    createdAt: now,
    updatedAt: now,
  };
}

/** The bytes of the Markdown file the page would be imported from (front matter and body). */
export function markdownBytes(page: KnowledgePageRecord): number {
  const frontMatter = `---\nslug: ${page.slug}\ntitle: ${page.title}\nsummary: ${page.summary}\n${page.tags.length ? `tags: [${page.tags.join(', ')}]\n` : ''}---\n\n`;
  return Buffer.byteLength(frontMatter) + Buffer.byteLength(page.content) + 1;
}
