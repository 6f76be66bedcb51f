// Collects analysed pages into one segment in memory: their page records, and per term the pages
// containing it with the term's impact in each. Pages are numbered from 0 here; the index file
// adds its next document number when it writes the segment (inside its transaction).
import { averageLengths, fieldFactors, impactOf, PAGE_FIELDS, type FieldCounts } from './bm25.ts';
import { BlockWriter, ByteWriter } from './codec.ts';
import { encodeForward, FIELD_SLOTS, type AnalyzedCounts } from './indexed-page.ts';

export interface BuiltPage {
  id: string;
  slug: string;
  title: string;
  revision: number;
  data: Buffer;
  /** The admins' synonym list, when this is its page. */
  synonyms?: string;
  /** Hash of the text its embedding is computed from (see vectors.ts). */
  embed?: string;
}

/** A page ready for a segment: its term ids, counts per field, lengths and encoded record. */
export interface PreparedPage {
  id: string;
  slug: string;
  title: string;
  revision: number;
  lengths: FieldCounts;
  ids: ArrayLike<number>;
  counts: ArrayLike<number>;
  data: Uint8Array;
}

export interface BuiltSegment {
  /** The index's epoch (see SearchIndexFile.clear) the term ids were taken in. */
  epoch?: string;
  pages: BuiltPage[];
  /** Emits the segment's posting blocks, documents numbered from `base`. */
  writeBlocks(base: number, emit: (firstTerm: number, data: Buffer) => void): void;
}

export class SegmentBuilder implements BuiltSegment {
  epoch: string | undefined;
  readonly pages: BuiltPage[] = [];
  // Postings in document order as two flat columns (term id; local document × 256 + impact),
  // grouped by term only when written: a list per term meant a million small arrays growing at
  // scattered term ids (a sparse array V8 keeps as a dictionary), most of a large import's main thread.
  #terms = new Int32Array(1 << 16);
  #values = new Int32Array(1 << 16);
  readonly #totals: FieldCounts;
  readonly #writer = new ByteWriter();
  #pageCount: number;
  #postingCount = 0;

  /** `totals`/`pages`: field lengths already in the index, for the averages impacts are normalised by. */
  constructor(totals: FieldCounts, pages: number) {
    this.#totals = { ...totals };
    this.#pageCount = pages;
  }

  get postingCount(): number {
    return this.#postingCount;
  }

  /** Adds a page; `ids[n]` is the term id of its n-th term. */
  add(page: AnalyzedCounts, ids: ArrayLike<number>): void {
    this.addPrepared({ ...page, ids, data: encodeForward(page, ids, this.#writer) });
  }

  /** Adds a page whose term ids and record were prepared elsewhere (on a worker thread). */
  addPrepared(page: PreparedPage): void {
    for (const field of PAGE_FIELDS) this.#totals[field] += page.lengths[field];
    this.#pageCount++;
    const factors = fieldFactors(page.lengths, averageLengths(this.#totals, this.#pageCount));
    const local = this.pages.length * 256;
    this.pages.push({
      id: page.id,
      slug: page.slug,
      title: page.title,
      revision: page.revision,
      data: Buffer.from(page.data.buffer, page.data.byteOffset, page.data.length),
    });
    const { counts, ids } = page;
    let at = this.#postingCount;
    if (at + ids.length > this.#terms.length) this.#grow(at + ids.length);
    const terms = this.#terms;
    const values = this.#values;
    for (let n = 0; n < ids.length; n++, at++) {
      let tf = 0;
      for (let slot = 0; slot < FIELD_SLOTS; slot++) tf += factors[slot]! * counts[n * FIELD_SLOTS + slot]!;
      terms[at] = ids[n]!;
      values[at] = local + impactOf(tf);
    }
    this.#postingCount = at;
  }

  #grow(needed: number): void {
    let size = this.#terms.length * 2;
    while (size < needed) size *= 2;
    const terms = new Int32Array(size);
    terms.set(this.#terms.subarray(0, this.#postingCount));
    const values = new Int32Array(size);
    values.set(this.#values.subarray(0, this.#postingCount));
    this.#terms = terms;
    this.#values = values;
  }

  writeBlocks(base: number, emit: (firstTerm: number, data: Buffer) => void): void {
    const writer = new BlockWriter(base, emit);
    const total = this.#postingCount;
    const terms = this.#terms;
    let maxTerm = -1;
    for (let i = 0; i < total; i++) if (terms[i]! > maxTerm) maxTerm = terms[i]!;
    // Counting sort by term id; stable, so each term's postings stay in document order.
    const start = new Int32Array(maxTerm + 2);
    for (let i = 0; i < total; i++) start[terms[i]! + 1]!++;
    for (let t = 1; t < start.length; t++) start[t]! += start[t - 1]!;
    const docs = new Int32Array(total);
    const impacts = new Uint8Array(total);
    const next = start.slice(0, maxTerm + 1);
    for (let i = 0; i < total; i++) {
      const at = next[terms[i]!]!++;
      const value = this.#values[i]!;
      docs[at] = base + (value >>> 8);
      impacts[at] = value & 255;
    }
    for (let termId = 0; termId <= maxTerm; termId++) {
      const from = start[termId]!;
      const to = start[termId + 1]!;
      if (to > from) writer.add(termId, docs.subarray(from, to), impacts.subarray(from, to));
    }
    writer.flush();
  }
}
