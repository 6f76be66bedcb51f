// The search index: its own SQLite file next to the database, a cache (deleting it only means the
// next start rebuilds it). It holds an inverted index of pages, written in segments:
// - page: one row per indexed page (a document number, and its per-term counts for ranking its
//   sections, see indexed-page.ts);
// - term: the vocabulary (term text → id);
// - block: per segment, the posting lists of its terms (the documents containing each term, with
//   its impact in each), packed into blocks of consecutive terms (see codec.ts);
// - segment: one per batch of indexed pages; small ones are merged (see merge.ts);
// - deleted: documents of pages deleted or re-indexed since their segment was written;
// - embedding: optional page vectors for semantic search (see vectors.ts).
// A page that changes gets a new document number in a new segment; the old one is only marked
// deleted. Every write is one transaction, so several processes can share the file; each caches
// what queries need and reloads it when another process has written (PRAGMA data_version).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { decodeList, type BlockEntry, type Postings } from './codec.ts';
import {
  addTotals,
  assignTermIds,
  findInBlock,
  headerTotals,
  INDEX_FORMAT,
  type IndexTotals,
  OLD_TABLES,
  type PageRow,
  SCHEMA,
  type SegmentInfo,
  StaleSegmentError,
  TABLES,
  type TermPostings,
  ZERO_TOTALS,
} from './index-layout.ts';
import { decodeForwardHeader } from './indexed-page.ts';
import type { BuiltSegment } from './segment-builder.ts';
import { SYNONYMS_SLUG } from './synonyms.ts';

/** How much of the index file is read through a memory map (the OS page cache, not SQLite's). */
const MMAP_BYTES = 1 << 30;
/** At most this many postings are kept decoded in memory (about 5 bytes each). */
const CACHED_POSTINGS = 4_000_000;
/** Page records kept in memory (a few KB each). */
const CACHED_PAGES = 4_096;
const CACHED_FREQUENCIES = 50_000;

export class SearchIndexFile {
  readonly file: string;
  readonly db: Database.Database;
  #version = -1;
  #checked = false;
  #writes = 0;
  #segments: SegmentInfo[] = [];
  #deleted = new Set<number>();
  #totals: IndexTotals = { ...ZERO_TOTALS };
  #synonyms = '';
  // Decoded posting lists of recent query terms (null: unknown term), dropped when the index changes.
  readonly #postings = new Map<string, TermPostings | null>();
  #cachedPostings = 0;
  // Document frequencies of recent query terms and candidate corrections.
  readonly #frequencies = new Map<string, number>();
  // Page records recently read by the second pass (kept until the index changes).
  readonly #pageRows = new Map<number, PageRow>();
  readonly #statements = new Map<string, Database.Statement>();

  private constructor(file: string, db: Database.Database) {
    this.file = file;
    this.db = db;
  }

  /** Opens (or creates) the index; an index of another format is emptied. */
  static open(file: string): SearchIndexFile {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file, { timeout: 15_000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Long posting lists are blobs of many pages: read through a memory map, they cost a fraction.
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
    const index = new SearchIndexFile(file, db);
    db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    if (index.meta('format') !== INDEX_FORMAT) index.clear();
    return index;
  }

  statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Empties the index (a full rebuild follows). */
  clear(): void {
    this.db
      .transaction(() => {
        for (const table of [...OLD_TABLES, ...TABLES]) this.db.exec(`DROP TABLE IF EXISTS ${table}`);
        this.db.exec(SCHEMA);
        this.#statements.clear();
        this.setMeta('format', INDEX_FORMAT);
        // Term ids restart: writers holding ids from before must notice (see writeSegment).
        // node:crypto is loaded here, not at start: a search never empties the index (and it takes ~5 ms to load).
        this.setMeta('epoch', process.getBuiltinModule('node:crypto').randomUUID());
        this.setMeta('lastRevisionId', '0');
        this.setMeta('nextDoc', '1');
        this.setMeta('nextTermId', '1');
        this.setMeta('totals', JSON.stringify(ZERO_TOTALS));
      })
      .immediate();
    this.#statements.clear();
    this.#version = -1;
  }

  meta(key: string): string | undefined {
    return (this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  get lastRevisionId(): number {
    return Number(this.meta('lastRevisionId') ?? 0);
  }

  set lastRevisionId(value: number) {
    this.setMeta('lastRevisionId', String(value));
  }

  /** Runs `work` in one write transaction (taken at once, so two processes never deadlock). */
  write<T>(work: () => T): T {
    try {
      return this.db.transaction(work).immediate();
    } finally {
      this.#version = -1;
      this.#writes++;
    }
  }

  /** Changes whenever this or another process has written to the index. */
  version(): string {
    return `${this.db.pragma('data_version', { simple: true }) as number}:${this.#writes}`;
  }

  // ---- Cached state, reloaded when another connection has written.

  /** Notices writes of other processes (call at the start of an operation; reads in between use what it loaded). */
  refresh(): void {
    this.#checked = false;
    this.#fresh();
  }

  #fresh(): void {
    if (this.#checked && this.#version !== -1) return;
    const version = this.db.pragma('data_version', { simple: true }) as number;
    this.#checked = true;
    if (version === this.#version) return;
    this.db
      .transaction(() => {
        this.#segments = this.statement(
          'SELECT id, first_doc AS firstDoc, last_doc AS lastDoc, docs FROM segment ORDER BY id',
        ).all() as SegmentInfo[];
        this.#deleted = new Set(this.statement('SELECT doc FROM deleted').pluck().all() as number[]);
        this.#totals = { ...ZERO_TOTALS, ...(JSON.parse(this.meta('totals') ?? '{}') as Partial<IndexTotals>) };
        this.#synonyms = this.meta('synonyms') ?? '';
      })
      .deferred();
    // Document numbers start again after the index is emptied (by any process): no cache survives a change.
    this.#postings.clear();
    this.#cachedPostings = 0;
    this.#frequencies.clear();
    this.#pageRows.clear();
    this.#version = version;
  }

  segments(): SegmentInfo[] {
    this.#fresh();
    return this.#segments;
  }

  deletedDocs(): Set<number> {
    this.#fresh();
    return this.#deleted;
  }

  totals(): IndexTotals {
    this.#fresh();
    return this.#totals;
  }

  /** The text of the admins' synonym page ('' without one). */
  synonymText(): string {
    this.#fresh();
    return this.#synonyms;
  }

  // ---- Vocabulary.

  /** Ids of the given terms, creating the missing ones. */
  termIds(terms: Iterable<string>): Map<string, number> {
    const out = assignTermIds(this.db, terms);
    this.#version = -1;
    return out;
  }

  termId(term: string): number | undefined {
    return this.statement('SELECT id FROM term WHERE text = ?').pluck().get(term) as number | undefined;
  }

  /** Which of `terms` the vocabulary has. */
  knownTerms(terms: string[]): string[] {
    if (terms.length === 0) return [];
    return this.statement('SELECT text FROM term WHERE text IN (SELECT value FROM json_each(?))')
      .pluck()
      .all(JSON.stringify(terms)) as string[];
  }

  /** The block of `segment` holding `termId`'s list, and the list's entry in it. */
  #entry(segment: SegmentInfo, termId: number): { block: Buffer; entry: BlockEntry } | undefined {
    const row = this.statement(
      'SELECT first_term AS firstTerm, data FROM block WHERE seg = ? AND first_term <= ? ORDER BY first_term DESC LIMIT 1',
    ).get(segment.id, termId) as { firstTerm: number; data: Buffer } | undefined;
    if (!row) return undefined;
    const entry = findInBlock(row.data, row.firstTerm, termId);
    return entry && { block: row.data, entry };
  }

  /** The posting lists of `term` in every segment (undefined when the index has never seen it). */
  postings(term: string): TermPostings | undefined {
    this.#fresh();
    const cached = this.#postings.get(term);
    if (cached !== undefined) {
      // Most recently used last, so the oldest go first when the cache is full.
      this.#postings.delete(term);
      this.#postings.set(term, cached);
      return cached ?? undefined;
    }
    const found = this.#readPostings(term);
    this.#cachedPostings += found ? found.df + 1 : 1;
    this.#postings.set(term, found ?? null);
    for (const [old, value] of this.#postings) {
      if (this.#cachedPostings <= CACHED_POSTINGS) break;
      this.#postings.delete(old);
      this.#cachedPostings -= value ? value.df + 1 : 1;
    }
    return found;
  }

  #readPostings(term: string): TermPostings | undefined {
    const termId = this.termId(term);
    if (termId === undefined) return undefined;
    const lists: Postings[] = [];
    let df = 0;
    let maxImpact = 0;
    for (const segment of this.segments()) {
      const found = this.#entry(segment, termId);
      if (!found) continue;
      lists.push(decodeList(found.block, found.entry, segment.firstDoc));
      df += found.entry.n;
      maxImpact = Math.max(maxImpact, found.entry.max);
    }
    return { termId, df, maxImpact, lists };
  }

  /** In how many pages each term occurs (deleted ones included until their segment is merged); no list is decoded. */
  documentFrequency(term: string): number {
    this.#fresh();
    const cached = this.#postings.get(term);
    if (cached !== undefined) return cached?.df ?? 0;
    let df = this.#frequencies.get(term);
    if (df === undefined) {
      const termId = this.termId(term);
      df = 0;
      if (termId !== undefined) for (const segment of this.segments()) df += this.#entry(segment, termId)?.entry.n ?? 0;
      if (this.#frequencies.size >= CACHED_FREQUENCIES) this.#frequencies.delete(this.#frequencies.keys().next().value!);
      this.#frequencies.set(term, df);
    }
    return df;
  }

  /** Vocabulary terms starting with `prefix` whose length is within [min, max] characters. */
  termsLike(prefix: string, min: number, max: number, limit: number): string[] {
    const upper = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    return this.statement('SELECT text FROM term WHERE text >= ? AND text < ? AND length(text) BETWEEN ? AND ? LIMIT ?')
      .pluck()
      .all(prefix, upper, min, max, limit) as string[];
  }

  // ---- Pages.

  page(doc: number): PageRow | undefined {
    return this.statement('SELECT doc, id, slug, title, revision, data FROM page WHERE doc = ?').get(doc) as PageRow | undefined;
  }

  /** The rows of these documents (those still indexed), in one statement for those not read recently. */
  pages(docs: number[]): Map<number, PageRow> {
    this.#fresh();
    const out = new Map<number, PageRow>();
    const missing: number[] = [];
    for (const doc of docs) {
      const row = this.#pageRows.get(doc);
      if (row) out.set(doc, row);
      else missing.push(doc);
    }
    if (missing.length === 0) return out;
    const rows = this.statement('SELECT doc, id, slug, title, revision, data FROM page WHERE doc IN (SELECT value FROM json_each(?))').all(
      JSON.stringify(missing),
    ) as PageRow[];
    for (const row of rows) {
      out.set(row.doc, row);
      if (this.#pageRows.size >= CACHED_PAGES) this.#pageRows.delete(this.#pageRows.keys().next().value!);
      this.#pageRows.set(row.doc, row);
    }
    return out;
  }

  pageRevisions(): Map<string, number> {
    const rows = this.statement('SELECT id, revision FROM page').all() as { id: string; revision: number }[];
    return new Map(rows.map((r) => [r.id, r.revision]));
  }

  revisionsOf(pageIds: string[]): Map<string, number> {
    const get = this.statement('SELECT revision FROM page WHERE id = ?').pluck();
    const out = new Map<string, number>();
    for (const id of pageIds) {
      const revision = get.get(id) as number | undefined;
      if (revision !== undefined) out.set(id, revision);
    }
    return out;
  }

  counts(): { pages: number; sections: number } {
    const { pages, sections } = this.totals();
    return { pages, sections };
  }

  /** Writes a built segment: its pages replace earlier versions of themselves. One transaction. */
  writeSegment(built: BuiltSegment): void {
    if (built.pages.length === 0) return;
    this.write(() => {
      if (built.epoch !== undefined && built.epoch !== this.meta('epoch')) throw new StaleSegmentError();
      const totals = { ...ZERO_TOTALS, ...(JSON.parse(this.meta('totals') ?? '{}') as Partial<IndexTotals>) };
      const base = Number(this.meta('nextDoc') ?? 1);
      this.#unindex(
        built.pages.map((p) => p.id),
        totals,
      );
      const insertPage = this.statement('INSERT INTO page (doc, id, slug, title, revision, data, embed) VALUES (?, ?, ?, ?, ?, ?, ?)');
      const tombstone = this.statement('INSERT OR IGNORE INTO deleted (doc) VALUES (?)');
      const last = new Map(built.pages.map((page, i) => [page.id, i]));
      for (const [i, page] of built.pages.entries()) {
        // The same page twice in one batch: the earlier version is already out of date.
        if (last.get(page.id) !== i) {
          tombstone.run(base + i);
          continue;
        }
        insertPage.run(base + i, page.id, page.slug, page.title, page.revision, page.data, page.embed ?? null);
        if (page.synonyms !== undefined) this.setMeta('synonyms', page.synonyms);
        addTotals(totals, headerTotals(decodeForwardHeader(page.data)), 1);
      }
      const { lastInsertRowid } = this.statement('INSERT INTO segment (first_doc, last_doc, docs) VALUES (?, ?, ?)').run(
        base,
        base + built.pages.length - 1,
        built.pages.length,
      );
      const insertBlock = this.statement('INSERT INTO block (seg, first_term, data) VALUES (?, ?, ?)');
      built.writeBlocks(base, (firstTerm, data) => insertBlock.run(lastInsertRowid, firstTerm, data));
      this.setMeta('nextDoc', String(base + built.pages.length));
      this.setMeta('totals', JSON.stringify(totals));
    });
  }

  removePages(pageIds: string[]): void {
    if (pageIds.length === 0) return;
    this.write(() => {
      const totals = { ...ZERO_TOTALS, ...(JSON.parse(this.meta('totals') ?? '{}') as Partial<IndexTotals>) };
      this.#unindex(pageIds, totals);
      this.setMeta('totals', JSON.stringify(totals));
    });
  }

  /** Marks the current documents of these pages deleted and takes them out of the totals. */
  #unindex(pageIds: string[], totals: IndexTotals): void {
    const find = this.statement('SELECT doc, slug, data FROM page WHERE id = ?');
    const remove = this.statement('DELETE FROM page WHERE doc = ?');
    const tombstone = this.statement('INSERT OR IGNORE INTO deleted (doc) VALUES (?)');
    for (const id of new Set(pageIds)) {
      const row = find.get(id) as { doc: number; slug: string; data: Buffer } | undefined;
      if (!row) continue;
      if (row.slug === SYNONYMS_SLUG) this.statement("DELETE FROM meta WHERE key = 'synonyms'").run();
      tombstone.run(row.doc);
      remove.run(row.doc);
      addTotals(totals, headerTotals(decodeForwardHeader(row.data)), -1);
    }
  }

  /** Moves the write-ahead log into the file (after a rebuild, so the log does not stay large). */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Size of the index on disk (0 in memory). */
  bytes(): number {
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    return pageSize * pages;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
