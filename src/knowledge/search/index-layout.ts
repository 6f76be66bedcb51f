// The layout of the search index file (see index-file.ts): its tables, the records read from them,
// and what both the index file's connection and the analysis workers' connections do with them
// (term ids, finding a term's list in a block, the running totals BM25 normalises by).
import type Database from 'better-sqlite3';
import type { FieldCounts } from './bm25.ts';
import { ByteReader, type BlockEntry, type Postings } from './codec.ts';
import type { ForwardHeader } from './indexed-page.ts';

/** Bump when tokenisation, sectioning, scoring or the layout changes: the index is then rebuilt. */
export const INDEX_FORMAT = '3';

export interface IndexTotals extends FieldCounts {
  pages: number;
  sections: number;
  /** Sum of section lengths, each counting its page's title, summary and tags (what section BM25 normalises by). */
  sectionTokens: number;
}

/** The index was emptied (by another process) after the segment's term ids were looked up. */
export class StaleSegmentError extends Error {
  constructor() {
    super('the search index was rebuilt while pages were being indexed');
    this.name = 'StaleSegmentError';
  }
}

export const ZERO_TOTALS: IndexTotals = { pages: 0, sections: 0, sectionTokens: 0, title: 0, heading: 0, summary: 0, tags: 0, content: 0 };

export interface SegmentInfo {
  id: number;
  firstDoc: number;
  lastDoc: number;
  docs: number;
}

export interface PageRow {
  doc: number;
  id: string;
  slug: string;
  title: string;
  revision: number;
  data: Buffer;
}

/** A term's posting lists, one per segment that has it. */
export interface TermPostings {
  termId: number;
  /** Documents containing the term, deleted ones included. */
  df: number;
  maxImpact: number;
  lists: Postings[];
}

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS page (doc INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, slug TEXT NOT NULL, title TEXT NOT NULL, revision INTEGER NOT NULL, data BLOB NOT NULL, embed TEXT);
CREATE TABLE IF NOT EXISTS term (text TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS segment (id INTEGER PRIMARY KEY AUTOINCREMENT, first_doc INTEGER NOT NULL, last_doc INTEGER NOT NULL, docs INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS block (seg INTEGER NOT NULL, first_term INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (seg, first_term)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deleted (doc INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS embedding (model TEXT NOT NULL, hash TEXT NOT NULL, dims INTEGER NOT NULL, scale REAL NOT NULL, data BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID;
`;
// Emptying the index keeps `embedding`: vectors cost money to compute and are keyed by their text.
export const TABLES = ['meta', 'page', 'term', 'segment', 'block', 'deleted', 'posting'];
// Tables of the first format (one FTS5 row per section).
export const OLD_TABLES = ['section_terms', 'section_text', 'section'];

/**
 * Ids of `terms` in the index on `db`, creating the missing ones in one write transaction (the
 * index file's own connection, or a worker's: ids are handed out under the database's lock).
 */
export function assignTermIds(db: Database.Database, terms: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  const find = db.prepare('SELECT id FROM term WHERE text = ?').pluck();
  const insert = db.prepare('INSERT INTO term (text, id) VALUES (?, ?)');
  const meta = db.prepare("SELECT value FROM meta WHERE key = 'nextTermId'").pluck();
  const setNext = db.prepare(
    "INSERT INTO meta (key, value) VALUES ('nextTermId', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  db.transaction(() => {
    let next = Number((meta.get() as string | undefined) ?? 1);
    const first = next;
    for (const term of terms) {
      let id = find.get(term) as number | undefined;
      if (id === undefined) {
        id = next++;
        insert.run(term, id);
      }
      out.set(term, id);
    }
    if (next !== first) setNext.run(String(next));
  }).immediate();
  return out;
}

/** The entry of `termId` in a block, without decoding the others. */
export function findInBlock(block: Uint8Array, firstTerm: number, termId: number): BlockEntry | undefined {
  const reader = new ByteReader(block);
  let id = firstTerm;
  let payload = 0;
  let found: BlockEntry | undefined;
  for (let count = reader.varint(); count > 0; count--) {
    id += reader.varint();
    const n = reader.varint();
    const max = reader.byte();
    const gapBytes = reader.varint();
    if (id === termId) found = { termId, n, max, offset: payload, gapBytes };
    payload += gapBytes + n;
    if (id > termId && !found) return undefined;
  }
  if (found) found.offset += reader.offset;
  return found;
}

export function headerTotals(header: ForwardHeader): IndexTotals {
  const pageFields = header.lengths.title + header.lengths.summary + header.lengths.tags;
  const sectionTokens = header.sectionLengths.reduce((n, length) => n + length + pageFields, 0);
  return { pages: 1, sections: header.sectionLengths.length, sectionTokens, ...header.lengths };
}

export function addTotals(into: IndexTotals, delta: IndexTotals, sign: 1 | -1): void {
  for (const key of Object.keys(into) as (keyof IndexTotals)[]) into[key] = Math.max(0, into[key] + sign * delta[key]);
}
