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
  // term id → (local document × 256 + impact), in document order.
  readonly #postings: (number[] | undefined)[] = [];
  readonly #termIds: number[] = [];
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
    for (let n = 0; n < ids.length; n++) {
      let tf = 0;
      for (let slot = 0; slot < FIELD_SLOTS; slot++) tf += factors[slot]! * counts[n * FIELD_SLOTS + slot]!;
      const id = ids[n]!;
      const list = this.#postings[id];
      if (list) list.push(local + impactOf(tf));
      else {
        this.#postings[id] = [local + impactOf(tf)];
        this.#termIds.push(id);
      }
    }
    this.#postingCount += ids.length;
  }

  writeBlocks(base: number, emit: (firstTerm: number, data: Buffer) => void): void {
    const writer = new BlockWriter(base, emit);
    const docs: number[] = [];
    const impacts: number[] = [];
    for (const termId of Int32Array.from(this.#termIds).sort()) {
      const packed = this.#postings[termId]!;
      docs.length = impacts.length = packed.length;
      for (let i = 0; i < packed.length; i++) {
        docs[i] = base + (packed[i]! >>> 8);
        impacts[i] = packed[i]! & 255;
      }
      writer.add(termId, docs, impacts);
    }
    writer.flush();
  }
}
