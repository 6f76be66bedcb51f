// How a page becomes what the index stores: its terms with their counts per field (title,
// headings, summary, tags, content) for the page as a whole, and per section (heading path and
// text) for ranking sections within the best pages. Title, summary and tags are counted once per
// page; a section's score adds them back (see bm25.ts). Indexing analyses every page, so the
// counts live in flat typed arrays rather than an object per term.
import type { KnowledgePageRecord } from '../../store/repos/knowledge.ts';
import { defaultTokenizer, type Term, type Tokenizer } from '../tokenizer.ts';
import { PAGE_FIELDS, type FieldCounts } from './bm25.ts';
import { ByteReader, ByteWriter } from './codec.ts';
import { splitSections, type PageSection } from './sections.ts';

export type { PageSection } from './sections.ts';

const SECTION_PATH_SEPARATOR = ' › ';

/** The page's sections; a page without body text still has one (empty) section to be found by. */
export function pageSections(content: string): PageSection[] {
  const { sections } = splitSections(content);
  return sections.length > 0 ? sections : [{ index: 0, path: [], markdown: content, text: '' }];
}

export function sectionLabel(path: string[] | string): string {
  const label = Array.isArray(path) ? path.join(SECTION_PATH_SEPARATOR) : path;
  return label || '(introduction)';
}

interface SectionLengths {
  heading: number;
  content: number;
}

// Field slots in AnalyzedPage.counts.
const TITLE = 0;
const HEADING = 1;
const SUMMARY = 2;
const TAGS = 3;
const CONTENT = 4;
export const FIELD_SLOTS = 5;

export interface AnalyzedPage {
  id: string;
  slug: string;
  title: string;
  revision: number;
  lengths: FieldCounts;
  sections: SectionLengths[];
  /** The page's distinct terms; a term's number is its position here. */
  terms: Term[];
  /** Counts per term and field: counts[term * FIELD_SLOTS + slot], slots in PAGE_FIELDS order. */
  counts: Int32Array;
  /**
   * Occurrences per section, four numbers each (term, section, count in the heading path, count
   * in the text), linked per term through `next` in section order from `first[term]`.
   */
  entries: Int32Array;
  first: Int32Array;
  next: Int32Array;
}

// Numbers the analysed pages, so that a term knows whether it was already seen in this one.
let pageNumber = 0;
// Scratch space reused from page to page (analysis is synchronous); results are copied out.
let counts = new Int32Array(FIELD_SLOTS * 1024);
let lastSection = new Int32Array(1024);
let lastEntry = new Int32Array(1024);
let entries = new Int32Array(4096);

function grown(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(size);
  next.set(array);
  return next;
}

export function analyzePage(page: KnowledgePageRecord, tokenizer: Tokenizer = defaultTokenizer): AnalyzedPage {
  tokenizer.trim();
  const scan = tokenizer.scan;
  const current = ++pageNumber;
  const terms: Term[] = [];
  let entryCount = 0;
  const lengths: FieldCounts = { title: 0, heading: 0, summary: 0, tags: 0, content: 0 };

  const termOf = (term: Term): number => {
    if (term.page === current) return term.slot;
    const n = terms.length;
    term.page = current;
    term.slot = n;
    terms.push(term);
    if (n >= lastSection.length) {
      counts = grown(counts, counts.length * 2);
      lastSection = grown(lastSection, lastSection.length * 2);
      lastEntry = grown(lastEntry, lastEntry.length * 2);
    }
    counts.fill(0, n * FIELD_SLOTS, n * FIELD_SLOTS + FIELD_SLOTS);
    lastSection[n] = -1;
    return n;
  };
  const pageField = (slot: number, field: keyof FieldCounts) => (term: Term) => {
    counts[termOf(term) * FIELD_SLOTS + slot]!++;
    lengths[field]++;
  };
  scan(page.title, pageField(TITLE, 'title'));
  scan(page.summary, pageField(SUMMARY, 'summary'));
  scan(page.tags.join(' '), pageField(TAGS, 'tags'));
  const sections = pageSections(page.content);
  const headingSink = pageField(HEADING, 'heading');
  for (const heading of new Set(sections.flatMap((s) => s.path))) scan(heading, headingSink);

  const sectionLengths: SectionLengths[] = [];
  let section = 0;
  let length: SectionLengths = { heading: 0, content: 0 };
  const occurrence = (slot: 2 | 3) => (term: Term) => {
    const n = termOf(term);
    let at: number;
    if (lastSection[n] === section) at = lastEntry[n]!;
    else {
      if (entryCount + 4 > entries.length) entries = grown(entries, entries.length * 2);
      at = entryCount;
      entries[at] = n;
      entries[at + 1] = section;
      entries[at + 2] = 0;
      entries[at + 3] = 0;
      entryCount += 4;
      lastSection[n] = section;
      lastEntry[n] = at;
    }
    entries[at + slot]!++;
    if (slot === 3) {
      counts[n * FIELD_SLOTS + CONTENT]!++;
      lengths.content++;
      length.content++;
    } else length.heading++;
  };
  const inHeading = occurrence(2);
  const inText = occurrence(3);
  for (const [s, part] of sections.entries()) {
    section = s;
    length = { heading: 0, content: 0 };
    scan(part.path.join(' '), inHeading);
    scan(part.text, inText);
    sectionLengths.push(length);
  }

  // Link each term's entries in section order.
  const first = new Int32Array(terms.length).fill(-1);
  const last = new Int32Array(terms.length).fill(-1);
  const next = new Int32Array(entryCount / 4).fill(-1);
  for (let e = 0; e < entryCount / 4; e++) {
    const n = entries[e * 4]!;
    if (first[n] === -1) first[n] = e;
    else next[last[n]!] = e;
    last[n] = e;
  }
  return {
    id: page.id,
    slug: page.slug,
    title: page.title,
    revision: page.revision,
    lengths,
    sections: sectionLengths,
    terms,
    counts: counts.slice(0, terms.length * FIELD_SLOTS),
    entries: entries.slice(0, entryCount),
    first,
    next,
  };
}

// The per-page record ("forward data") the second pass reads for a few pages per query:
// version, field lengths, section lengths, the number of terms, a skip table (the id and the byte
// offset of every SKIP-th term, so a query's few terms are found without reading the others), then
// per term in ascending id order: id delta (0 at each skip point), a header (number of section
// entries × 8 + flags: title, summary, tags counts follow), the counts, and the section entries,
// one varint each in the common case: section delta × 4 + code, code 0/1: once/twice in the text;
// 2: text count follows; 3: text and heading counts follow.
const FORWARD_VERSION = 3;
const SKIP = 16;
const HAS_TITLE = 1;
const HAS_SUMMARY = 2;
const HAS_TAGS = 4;

const entryWriter = new ByteWriter();

/** An analysed page whatever form its terms take (objects here, text from a worker). */
export type AnalyzedCounts = Omit<AnalyzedPage, 'terms'> & { terms: ArrayLike<unknown> };

export function encodeForward(page: AnalyzedCounts, ids: ArrayLike<number>, out = new ByteWriter()): Buffer {
  // Terms in id order: sort id × 2^20 + term number (a page has fewer than 2^20 terms).
  const keys = new Float64Array(page.terms.length);
  for (let n = 0; n < keys.length; n++) keys[n] = ids[n]! * 1_048_576 + n;
  keys.sort();
  const skips: number[] = [];
  const body = entryWriter;
  body.reset();
  let previous = 0;
  const { counts, entries, first, next } = page;
  for (let k = 0; k < keys.length; k++) {
    // The id is the high part (exact in a double); `%` on doubles would be a slow library call.
    const key = keys[k]!;
    const id = Math.floor(key / 1_048_576);
    const n = key - id * 1_048_576;
    if (k % SKIP === 0) {
      skips.push(id, body.length);
      previous = id;
    }
    body.varint(id - previous);
    previous = id;
    let sections = 0;
    for (let e = first[n]!; e >= 0; e = next[e]!) sections++;
    const title = counts[n * FIELD_SLOTS + TITLE]!;
    const summary = counts[n * FIELD_SLOTS + SUMMARY]!;
    const tags = counts[n * FIELD_SLOTS + TAGS]!;
    body.varint(sections * 8 + (title ? HAS_TITLE : 0) + (summary ? HAS_SUMMARY : 0) + (tags ? HAS_TAGS : 0));
    if (title) body.varint(title);
    if (summary) body.varint(summary);
    if (tags) body.varint(tags);
    let previousSection = 0;
    for (let e = first[n]!; e >= 0; e = next[e]!) {
      const section = entries[e * 4 + 1]!;
      const heading = entries[e * 4 + 2]!;
      const content = entries[e * 4 + 3]!;
      const delta = (section - previousSection) * 4;
      previousSection = section;
      if (heading === 0 && (content === 1 || content === 2)) body.varint(delta + content - 1);
      else if (heading === 0) {
        body.varint(delta + 2);
        body.varint(content);
      } else {
        body.varint(delta + 3);
        body.varint(content);
        body.varint(heading);
      }
    }
  }
  out.reset();
  out.varint(FORWARD_VERSION);
  for (const field of PAGE_FIELDS) out.varint(page.lengths[field]);
  out.varint(page.sections.length);
  for (const section of page.sections) {
    out.varint(section.heading);
    out.varint(section.content);
  }
  out.varint(keys.length);
  for (const value of skips) out.varint(value);
  out.bytes(body.view());
  return out.toBuffer();
}

export interface ForwardHeader {
  lengths: FieldCounts;
  /** Per section, its length in terms: heading path and text together. */
  sectionLengths: Int32Array;
}

function readHeader(reader: ByteReader): ForwardHeader {
  const version = reader.varint();
  if (version !== FORWARD_VERSION) throw new RangeError(`unknown page record version ${version} in the search index`);
  const lengths = {} as FieldCounts;
  for (const field of PAGE_FIELDS) lengths[field] = reader.varint();
  const sectionLengths = new Int32Array(reader.varint());
  for (let n = 0; n < sectionLengths.length; n++) sectionLengths[n] = reader.varint() + reader.varint();
  return { lengths, sectionLengths };
}

export function decodeForwardHeader(blob: Uint8Array): ForwardHeader {
  return readHeader(new ByteReader(blob));
}

export interface ForwardMatch {
  /** Which query term (the value given for its id in `wanted`). */
  term: number;
  title: number;
  summary: number;
  tags: number;
  /** Flattened section index, heading count, text count. */
  sections: number[];
}

/** The header and the entries of the wanted term ids (id → a number the caller uses to tell them apart). */
export function decodeForward(blob: Uint8Array, wanted: Map<number, number>): ForwardHeader & { matches: ForwardMatch[] } {
  const reader = new ByteReader(blob);
  const header = readHeader(reader);
  const count = reader.varint();
  const skipIds: number[] = [];
  const skipOffsets: number[] = [];
  for (let k = 0; k < count; k += SKIP) {
    skipIds.push(reader.varint());
    skipOffsets.push(reader.varint());
  }
  const body = reader.offset;
  const matches: ForwardMatch[] = [];
  for (const id of [...wanted.keys()].sort((a, b) => a - b)) {
    // The last skip point at or before `id`, then at most SKIP entries.
    let lo = 0;
    let hi = skipIds.length - 1;
    let block = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (skipIds[mid]! <= id) {
        block = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (block < 0) continue;
    reader.offset = body + skipOffsets[block]!;
    let current = skipIds[block]!;
    for (let k = block * SKIP; k < Math.min(count, (block + 1) * SKIP); k++) {
      current += reader.varint();
      if (current > id) break;
      const head = reader.varint();
      const title = head & HAS_TITLE ? reader.varint() : 0;
      const summary = head & HAS_SUMMARY ? reader.varint() : 0;
      const tags = head & HAS_TAGS ? reader.varint() : 0;
      const found = current === id;
      const sections: number[] = [];
      let section = 0;
      for (let e = head >>> 3; e > 0; e--) {
        const value = reader.varint();
        section += value >>> 2;
        const code = value & 3;
        const content = code < 2 ? code + 1 : reader.varint();
        const heading = code === 3 ? reader.varint() : 0;
        if (found) sections.push(section, heading, content);
      }
      if (found) {
        matches.push({ term: wanted.get(id)!, title, summary, tags, sections });
        break;
      }
    }
  }
  return { ...header, matches };
}

/**
 * The term ids of each page's terms. Ids are cached on the term objects, tagged with `owner` (the
 * index's epoch as the caller counts it); only terms without an id of this owner are looked up.
 */
export function pageTermIds(pages: AnalyzedPage[], owner: number, lookup: (texts: Iterable<string>) => Map<string, number>): Int32Array[] {
  const missing = new Map<string, AnalyzedPage['terms']>();
  for (const page of pages) {
    for (const term of page.terms) {
      if (term.idOwner === owner) continue;
      const same = missing.get(term.text);
      if (same) same.push(term);
      else missing.set(term.text, [term]);
    }
  }
  if (missing.size) {
    for (const [text, id] of lookup(missing.keys())) {
      for (const term of missing.get(text)!) {
        term.idOwner = owner;
        term.id = id;
      }
    }
  }
  return pages.map((page) => {
    const ids = new Int32Array(page.terms.length);
    for (let n = 0; n < ids.length; n++) ids[n] = page.terms[n]!.id;
    return ids;
  });
}
