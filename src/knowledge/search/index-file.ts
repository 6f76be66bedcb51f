// The search index: a SQLite FTS5 table of page sections in its own file next to the database.
// FTS5 stores the postings and ranks with BM25 and per-column weights; Parley gives it terms it
// has already tokenised (CJK bigrams, stems), so its own tokenizer only splits on spaces. The
// table is contentless: the text lives in the database, the index only holds what ranking needs.
// The file is a cache: deleting it only means the next start rebuilds it.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** Bump when tokenisation, sectioning or the table layout changes: the index is then rebuilt. */
export const INDEX_FORMAT = '1';

export const FIELDS = ['title', 'heading', 'summary', 'tags', 'content'] as const;
export type Field = (typeof FIELDS)[number];
export type FieldWeights = Record<Field, number>;

export interface IndexedSection {
  position: number;
  /** Headings of the section joined with " › " ("" for the introduction). */
  path: string;
  /** Space-separated terms per field. */
  terms: Record<Field, string>;
}

export interface IndexedPage {
  id: string;
  slug: string;
  title: string;
  revision: number;
  sections: IndexedSection[];
}

export interface SectionMatch {
  sectionId: number;
  pageId: string;
  slug: string;
  title: string;
  position: number;
  path: string;
  score: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS page (id TEXT PRIMARY KEY, slug TEXT NOT NULL, title TEXT NOT NULL, revision INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS section (id INTEGER PRIMARY KEY, page_id TEXT NOT NULL, position INTEGER NOT NULL, path TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS section_by_page ON section (page_id);
CREATE VIRTUAL TABLE IF NOT EXISTS section_text USING fts5(
  ${FIELDS.join(', ')},
  content = '', contentless_delete = 1,
  tokenize = "unicode61 remove_diacritics 0 tokenchars '._-/:@#$'"
);
CREATE VIRTUAL TABLE IF NOT EXISTS section_terms USING fts5vocab(section_text, 'row');
`;

const DROP = `
DROP TABLE IF EXISTS section_terms; DROP TABLE IF EXISTS section_text; DROP TABLE IF EXISTS section;
DROP TABLE IF EXISTS page; DROP TABLE IF EXISTS meta;
`;

/** An FTS5 query matching any of `terms` (each quoted, so no term is read as query syntax). */
export function anyOf(terms: string[]): string {
  return terms.map((term) => `"${term.replace(/"/g, '""')}"`).join(' OR ');
}

export class SearchIndexFile {
  readonly file: string;
  readonly #db: Database.Database;

  private constructor(file: string, db: Database.Database) {
    this.file = file;
    this.#db = db;
  }

  /** Opens (or creates) the index; an index of another format is emptied. */
  static open(file: string): SearchIndexFile {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file, { timeout: 15_000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const index = new SearchIndexFile(file, db);
    index.#prepare();
    return index;
  }

  #prepare(): void {
    this.#db.exec(SCHEMA);
    if (this.meta('format') !== INDEX_FORMAT) this.clear();
  }

  /** Empties the index (a full rebuild follows). */
  clear(): void {
    this.#db.transaction(() => {
      this.#db.exec(DROP);
      this.#db.exec(SCHEMA);
      this.setMeta('format', INDEX_FORMAT);
      this.setMeta('lastRevisionId', '0');
    })();
  }

  meta(key: string): string | undefined {
    return (this.#db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.#db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  get lastRevisionId(): number {
    return Number(this.meta('lastRevisionId') ?? 0);
  }

  set lastRevisionId(value: number) {
    this.setMeta('lastRevisionId', String(value));
  }

  /** Replaces the given pages (all their sections) in one transaction. */
  replacePages(pages: IndexedPage[]): void {
    const insertSection = this.#db.prepare('INSERT INTO section (page_id, position, path) VALUES (?, ?, ?)');
    const insertText = this.#db.prepare(`INSERT INTO section_text (rowid, ${FIELDS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?)`);
    const upsertPage = this.#db.prepare(
      'INSERT INTO page (id, slug, title, revision) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, title = excluded.title, revision = excluded.revision',
    );
    this.#db.transaction(() => {
      this.#removeSections(pages.map((p) => p.id));
      for (const page of pages) {
        upsertPage.run(page.id, page.slug, page.title, page.revision);
        for (const section of page.sections) {
          const { lastInsertRowid } = insertSection.run(page.id, section.position, section.path);
          insertText.run(lastInsertRowid, ...FIELDS.map((field) => section.terms[field]));
        }
      }
    })();
  }

  removePages(pageIds: string[]): void {
    const deletePage = this.#db.prepare('DELETE FROM page WHERE id = ?');
    this.#db.transaction(() => {
      this.#removeSections(pageIds);
      for (const id of pageIds) deletePage.run(id);
    })();
  }

  #removeSections(pageIds: string[]): void {
    const sections = this.#db.prepare('SELECT id FROM section WHERE page_id = ?').pluck();
    const deleteText = this.#db.prepare('DELETE FROM section_text WHERE rowid = ?');
    const deleteSections = this.#db.prepare('DELETE FROM section WHERE page_id = ?');
    for (const pageId of pageIds) {
      for (const id of sections.all(pageId) as number[]) deleteText.run(id);
      deleteSections.run(pageId);
    }
  }

  pageRevisions(): Map<string, number> {
    const rows = this.#db.prepare('SELECT id, revision FROM page').all() as { id: string; revision: number }[];
    return new Map(rows.map((r) => [r.id, r.revision]));
  }

  revisionsOf(pageIds: string[]): Map<string, number> {
    const get = this.#db.prepare('SELECT revision FROM page WHERE id = ?').pluck();
    const out = new Map<string, number>();
    for (const id of pageIds) {
      const revision = get.get(id) as number | undefined;
      if (revision !== undefined) out.set(id, revision);
    }
    return out;
  }

  counts(): { pages: number; sections: number } {
    const pages = this.#db.prepare('SELECT count(*) FROM page').pluck().get() as number;
    const sections = this.#db.prepare('SELECT count(*) FROM section').pluck().get() as number;
    return { pages, sections };
  }

  /** In how many sections each term occurs (0 when it occurs nowhere). */
  documentFrequencies(terms: string[]): Map<string, number> {
    const get = this.#db.prepare('SELECT doc FROM section_terms WHERE term = ?').pluck();
    return new Map(terms.map((term) => [term, (get.get(term) as number | undefined) ?? 0]));
  }

  /** The best sections for an FTS5 `expression`, by BM25 with `weights` (higher is better). */
  match(expression: string, weights: FieldWeights, limit: number): SectionMatch[] {
    const w = FIELDS.map((field) => weights[field]);
    return this.#db
      .prepare(
        // Rank inside FTS5 first and join only the top rows: joining every match costs more than ranking.
        `SELECT best.sectionId, s.page_id AS pageId, p.slug, p.title, s.position, s.path, best.score
         FROM (SELECT rowid AS sectionId, -bm25(section_text, ?, ?, ?, ?, ?) AS score FROM section_text
               WHERE section_text MATCH ? ORDER BY score DESC LIMIT ?) AS best
         JOIN section s ON s.id = best.sectionId JOIN page p ON p.id = s.page_id
         ORDER BY best.score DESC`,
      )
      .all(...w, expression, limit) as SectionMatch[];
  }

  /** Scores of the given sections with only `field` weighted (what that field alone contributes). */
  fieldScores(expression: string, sectionIds: number[], field: Field, weight: number): Map<number, number> {
    if (sectionIds.length === 0) return new Map();
    const w = FIELDS.map((f) => (f === field ? weight : 0));
    const rows = this.#db
      .prepare(
        `SELECT rowid AS sectionId, -bm25(section_text, ?, ?, ?, ?, ?) AS score FROM section_text
         WHERE section_text MATCH ? AND rowid IN (${sectionIds.map(() => '?').join(', ')})`,
      )
      .all(...w, expression, ...sectionIds) as { sectionId: number; score: number }[];
    return new Map(rows.map((r) => [r.sectionId, r.score]));
  }

  /** Size of the index on disk (0 in memory). */
  bytes(): number {
    const pageSize = this.#db.pragma('page_size', { simple: true }) as number;
    const pages = this.#db.pragma('page_count', { simple: true }) as number;
    return pageSize * pages;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
