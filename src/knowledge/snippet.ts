// A short excerpt of a section around the words of the query: the window of text that contains
// the most different query words (stems match word beginnings, CJK matches by bigram).
import { stemmer } from 'stemmer';
import { ENGLISH_STOP_WORDS } from './stop-words.ts';

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー]+/gu;
const LATIN_WORD = /[\p{L}\p{N}_]+/gu;
const MAX_MATCHES = 5_000;

function needlesOf(query: string): string[] {
  const text = query.normalize('NFKC').toLowerCase();
  const needles = new Set<string>();
  for (const [run] of text.matchAll(CJK_RUN)) {
    const chars = [...run];
    if (chars.length === 1) needles.add(run);
    for (let i = 0; i + 1 < chars.length; i++) needles.add(chars[i]! + chars[i + 1]!);
  }
  for (const [word] of text.replace(CJK_RUN, ' ').matchAll(LATIN_WORD)) {
    if (word.length < 2 || ENGLISH_STOP_WORDS.has(word)) continue;
    needles.add(/^[a-z]+$/.test(word) ? stemmer(word) : word);
  }
  return [...needles];
}

export function snippet(text: string, query: string, maxChars = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxChars) return flat;
  const haystack = flat.normalize('NFKC').toLowerCase();
  const matches: { at: number; needle: number }[] = [];
  for (const [n, needle] of needlesOf(query).entries()) {
    for (let at = haystack.indexOf(needle); at >= 0 && matches.length < MAX_MATCHES; at = haystack.indexOf(needle, at + needle.length)) {
      matches.push({ at, needle: n });
    }
  }
  matches.sort((a, b) => a.at - b.at);
  let best = { start: 0, distinct: 0 };
  const counts = new Map<number, number>();
  for (let right = 0, left = 0; right < matches.length; right++) {
    counts.set(matches[right]!.needle, (counts.get(matches[right]!.needle) ?? 0) + 1);
    while (matches[right]!.at - matches[left]!.at > maxChars * 0.8) {
      const needle = matches[left]!.needle;
      const count = counts.get(needle)! - 1;
      if (count === 0) counts.delete(needle);
      else counts.set(needle, count);
      left++;
    }
    if (counts.size > best.distinct) best = { start: matches[left]!.at, distinct: counts.size };
  }
  // Open a little before the first match, at a word boundary when there is one nearby.
  let start = Math.max(0, best.start - Math.floor(maxChars * 0.15));
  const space = flat.indexOf(' ', start);
  if (start > 0 && space >= 0 && space < best.start) start = space + 1;
  let end = Math.min(flat.length, start + maxChars);
  const lastSpace = flat.lastIndexOf(' ', end);
  if (end < flat.length && lastSpace > start + maxChars / 2) end = lastSpace;
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}
