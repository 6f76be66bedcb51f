// Compact binary encodings for the search index: unsigned varints, posting lists (document
// numbers as varint gaps, then one impact byte each) and blocks of posting lists.
// A block holds the lists of consecutive terms of one segment (about BLOCK_BYTES; a longer list
// gets a block of its own), so the index has one row per block instead of one per term:
//   varint count, then per list: varint term id gap, varint n, byte max impact, varint bytes of
//   its document gaps; then the lists one after the other (gaps, then n impact bytes).

export class ByteWriter {
  #bytes = new Uint8Array(1024);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  reset(): void {
    this.#length = 0;
  }

  #reserve(extra: number): void {
    if (this.#length + extra <= this.#bytes.length) return;
    let size = this.#bytes.length * 2;
    while (size < this.#length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = next;
  }

  varint(value: number): void {
    this.#reserve(5);
    let v = value >>> 0;
    while (v >= 0x80) {
      this.#bytes[this.#length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.#bytes[this.#length++] = v;
  }

  byte(value: number): void {
    this.#reserve(1);
    this.#bytes[this.#length++] = value;
  }

  bytes(data: Uint8Array): void {
    this.#reserve(data.length);
    this.#bytes.set(data, this.#length);
    this.#length += data.length;
  }

  /** What was written so far (a view: valid until the next write). */
  view(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }

  /** A copy of what was written, as a Buffer (what SQLite stores as a BLOB). */
  toBuffer(): Buffer {
    return Buffer.from(this.#bytes.subarray(0, this.#length));
  }
}

export class ByteReader {
  readonly bytes: Uint8Array;
  offset: number;

  constructor(bytes: Uint8Array, offset = 0) {
    this.bytes = bytes;
    this.offset = offset;
  }

  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.offset >= this.bytes.length) throw new RangeError('truncated varint in the search index');
      const byte = this.bytes[this.offset++]!;
      result |= (byte & 0x7f) << shift;
      if (byte < 0x80) return result >>> 0;
      shift += 7;
      if (shift > 28) throw new RangeError('varint too long in the search index');
    }
  }

  byte(): number {
    if (this.offset >= this.bytes.length) throw new RangeError('truncated byte in the search index');
    return this.bytes[this.offset++]!;
  }
}

/** A posting list: ascending document numbers and the impact (1-255) of the term in each. */
export interface Postings {
  docs: Uint32Array;
  impacts: Uint8Array;
}

/** Document gaps (from `base`) of a list, and its impacts, appended to `gaps` and `impacts`. */
function encodeList(docs: ArrayLike<number>, impacts: ArrayLike<number>, base: number, gaps: ByteWriter): void {
  let previous = base;
  for (let i = 0; i < docs.length; i++) {
    gaps.varint(docs[i]! - previous);
    previous = docs[i]!;
  }
  for (let i = 0; i < impacts.length; i++) gaps.byte(impacts[i]!);
}

export interface BlockEntry {
  termId: number;
  n: number;
  max: number;
  /** Where the list's gaps start in the block, and how many bytes they take (impacts follow). */
  offset: number;
  gapBytes: number;
}

/** The directory of a block: its lists in term order. */
export function readBlock(block: Uint8Array, firstTerm: number): BlockEntry[] {
  const reader = new ByteReader(block);
  const count = reader.varint();
  const entries: BlockEntry[] = [];
  let termId = firstTerm;
  for (let i = 0; i < count; i++) {
    termId += reader.varint();
    const n = reader.varint();
    const max = reader.byte();
    const gapBytes = reader.varint();
    entries.push({ termId, n, max, offset: 0, gapBytes });
  }
  let offset = reader.offset;
  for (const entry of entries) {
    entry.offset = offset;
    offset += entry.gapBytes + entry.n;
  }
  if (offset !== block.length) throw new RangeError('inconsistent posting block in the search index');
  return entries;
}

export function decodeList(block: Uint8Array, entry: BlockEntry, base: number): Postings {
  const docs = new Uint32Array(entry.n);
  const reader = new ByteReader(block, entry.offset);
  let doc = base;
  for (let i = 0; i < entry.n; i++) docs[i] = doc += reader.varint();
  if (reader.offset !== entry.offset + entry.gapBytes) throw new RangeError('inconsistent posting list in the search index');
  return { docs, impacts: block.subarray(reader.offset, reader.offset + entry.n) };
}

/** Index of `doc` in the ascending `docs` (searching from index `from`), or -1. */
export function findDoc(docs: Uint32Array, doc: number, from = 0): number {
  let lo = from;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const value = docs[mid]!;
    if (value === doc) return mid;
    if (value < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

const BLOCK_BYTES = 8_192;

/** Packs lists (given in ascending term order) into blocks. */
export class BlockWriter {
  readonly #base: number;
  readonly #emit: (firstTerm: number, data: Buffer) => void;
  #entries: { termId: number; n: number; max: number; gapBytes: number }[] = [];
  readonly #payload = new ByteWriter();
  readonly #list = new ByteWriter();
  readonly #out = new ByteWriter();

  /** `base`: the segment's first document; `emit` stores a finished block. */
  constructor(base: number, emit: (firstTerm: number, data: Buffer) => void) {
    this.#base = base;
    this.#emit = emit;
  }

  add(termId: number, docs: ArrayLike<number>, impacts: ArrayLike<number>): void {
    if (docs.length === 0) return;
    let max = 0;
    for (let i = 0; i < impacts.length; i++) if (impacts[i]! > max) max = impacts[i]!;
    this.#list.reset();
    encodeList(docs, impacts, this.#base, this.#list);
    const size = this.#list.length;
    if (this.#entries.length > 0 && this.#payload.length + size > BLOCK_BYTES) this.flush();
    this.#entries.push({ termId, n: docs.length, max, gapBytes: size - docs.length });
    this.#payload.bytes(this.#list.view());
    if (this.#payload.length >= BLOCK_BYTES) this.flush();
  }

  flush(): void {
    if (this.#entries.length === 0) return;
    const out = this.#out;
    out.reset();
    out.varint(this.#entries.length);
    const firstTerm = this.#entries[0]!.termId;
    let previous = firstTerm;
    for (const entry of this.#entries) {
      out.varint(entry.termId - previous);
      previous = entry.termId;
      out.varint(entry.n);
      out.byte(entry.max);
      out.varint(entry.gapBytes);
    }
    out.bytes(this.#payload.view());
    this.#emit(firstTerm, out.toBuffer());
    this.#entries = [];
    this.#payload.reset();
  }
}
