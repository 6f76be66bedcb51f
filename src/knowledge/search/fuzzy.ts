// Typo tolerance: a Latin word the index does not know ("webhok", "keybord") is read as the
// closest terms of the index's own vocabulary by edit distance (insertions, deletions,
// substitutions, and swaps of neighbours count one). Up to 7 letters one edit is allowed, from 8
// two. Every word one edit away is looked up at once (the typo may be anywhere, the first letter
// too); two edits away, the vocabulary terms sharing the first three letters are compared.

/** Optimal string alignment distance between `a` and `b`, or max + 1 once it exceeds `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  let before = new Array<number>(n + 1);
  let previous = Array.from({ length: n + 1 }, (_, j) => j);
  let current = new Array<number>(n + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1))
        d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[n]!, max + 1);
}

/** Edits allowed for a word of this length (0: too short to guess). */
export function allowedEdits(length: number): number {
  return length < 4 ? 0 : length < 8 ? 1 : 2;
}

export interface VocabularySource {
  /** Which of `terms` the vocabulary has. */
  knownTerms(terms: string[]): string[];
  /** Vocabulary terms starting with `prefix`, with a length in [min, max]. */
  termsLike(prefix: string, min: number, max: number, limit: number): string[];
  documentFrequency(term: string): number;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Every word one edit away from `word`. */
function oneEditAway(word: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i <= word.length; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    if (tail) out.add(head + tail.slice(1));
    if (tail.length > 1) out.add(head + tail[1] + tail[0] + tail.slice(2));
    for (const letter of LETTERS) {
      out.add(head + letter + tail);
      if (tail && letter !== tail[0]) out.add(head + letter + tail.slice(1));
    }
  }
  out.delete(word);
  return out;
}

export interface Correction {
  term: string;
  distance: number;
  df: number;
}

const ASCII_WORD = /^[a-z]+$/;
const SCAN_LIMIT = 5_000;

/**
 * Known terms close to an unknown word. `forms` are the ways the word may appear in the
 * vocabulary (its stem, and the word itself): the closest terms to any of them, most frequent first.
 */
export function corrections(forms: string[], vocabulary: VocabularySource, limit = 2): Correction[] {
  const words = [...new Set(forms)].filter((f) => ASCII_WORD.test(f) && allowedEdits(f.length) > 0);
  if (words.length === 0) return [];
  const found = new Map<string, number>();
  const near = new Set<string>();
  for (const word of words) for (const candidate of oneEditAway(word)) near.add(candidate);
  for (const term of vocabulary.knownTerms([...near])) found.set(term, 1);
  for (const word of words) {
    if (allowedEdits(word.length) < 2 || found.size > 0) continue;
    for (const candidate of vocabulary.termsLike(word.slice(0, 3), word.length - 2, word.length + 2, SCAN_LIMIT)) {
      if (!ASCII_WORD.test(candidate) || found.has(candidate)) continue;
      const distance = editDistance(word, candidate, 2);
      if (distance > 0 && distance <= 2) found.set(candidate, distance);
    }
  }
  if (found.size === 0) return [];
  const best = Math.min(...found.values());
  return [...found]
    .filter(([, distance]) => distance === best)
    .map(([term, distance]) => ({ term, distance, df: vocabulary.documentFrequency(term) }))
    .filter((c) => c.df > 0)
    .sort((a, b) => b.df - a.df || a.term.localeCompare(b.term))
    .slice(0, limit);
}
