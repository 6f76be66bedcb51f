// The plain baseline for retrieval quality: SQLite FTS5 with its defaults (unicode61 tokenizer on
// the raw text, no stemming, CJK runs as single tokens, bm25() without field weights), over the
// same sections, a page ranked by its best section.
import Database from 'better-sqlite3';
import { pageSections } from '../src/knowledge/search/indexed-page.ts';
import type { KnowledgePageRecord } from '../src/store/repos/knowledge.ts';

export interface BaselineIndex {
  /** Page slugs, best first. */
  search(query: string, limit: number): string[];
  close(): void;
}

export function buildBaseline(pages: KnowledgePageRecord[]): BaselineIndex {
  const db = new Database(':memory:');
  db.exec('CREATE VIRTUAL TABLE section USING fts5(slug UNINDEXED, title, heading, summary, tags, content)');
  const insert = db.prepare('INSERT INTO section (slug, title, heading, summary, tags, content) VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (const page of pages) {
      for (const section of pageSections(page.content)) {
        insert.run(page.slug, page.title, section.path.join(' '), page.summary, page.tags.join(' '), section.text);
      }
    }
  })();
  const query = db.prepare('SELECT slug FROM section WHERE section MATCH ? ORDER BY bm25(section) LIMIT ?').pluck();
  return {
    search(text, limit) {
      // Raw user text is not valid FTS5 syntax; its words, quoted and OR-ed, are the plainest query.
      const words = [...new Set(text.match(/[\p{L}\p{N}]+/gu) ?? [])];
      if (words.length === 0) return [];
      const slugs = query.all(words.map((w) => `"${w}"`).join(' OR '), limit * 20) as string[];
      return [...new Set(slugs)].slice(0, limit);
    },
    close: () => db.close(),
  };
}
