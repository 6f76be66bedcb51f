// A read-only view of the knowledge pages of a SQLite database for `parley knowledge search`:
// prepared statements on a plain better-sqlite3 connection, so a search does not load the Prisma
// client or look at migrations (most of the command's start-up). The same answers as the
// repository's read functions (knowledge.ts).
import Database from 'better-sqlite3';
import type { KnowledgePageRecord, KnowledgeRepo, KnowledgeStamp } from './knowledge.ts';
import { PAGE_COLUMNS, toPage, type PageRow } from './knowledge-bulk.ts';

export type KnowledgeReader = Pick<KnowledgeRepo, 'getByIds' | 'count' | 'stamp' | 'changedSince' | 'batchAfter' | 'versions'> & {
  close(): void;
};

/** A reader on `file`, or undefined when there is no such database with knowledge pages yet. */
export function openKnowledgeReader(file: string): KnowledgeReader | undefined {
  let db: Database.Database;
  try {
    // Read-write (it only reads): a read-only connection cannot open a WAL database whose -shm file is gone.
    db = new Database(file, { fileMustExist: true, timeout: 15_000 });
  } catch {
    return undefined;
  }
  const tables = db
    .prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('KnowledgePage', 'KnowledgeRevision')`)
    .pluck()
    .get() as number;
  if (tables !== 2) {
    db.close();
    return undefined;
  }
  const byIds = db.prepare(`SELECT ${PAGE_COLUMNS} FROM "KnowledgePage" WHERE "id" IN (SELECT value FROM json_each(?))`);
  const after = db.prepare(`SELECT ${PAGE_COLUMNS} FROM "KnowledgePage" WHERE "id" > ? ORDER BY "id" LIMIT ?`);
  const count = db.prepare('SELECT count(*) FROM "KnowledgePage"').pluck();
  const newest = db.prepare('SELECT max("id") FROM "KnowledgeRevision"').pluck();
  const changed = db.prepare('SELECT "id", "pageId" FROM "KnowledgeRevision" WHERE "id" > ? ORDER BY "id" LIMIT ?');
  const versions = db.prepare('SELECT "id", "revision" FROM "KnowledgePage"');
  return {
    async getByIds(ids: string[]): Promise<KnowledgePageRecord[]> {
      if (ids.length === 0) return [];
      return (byIds.all(JSON.stringify(ids)) as PageRow[]).map(toPage);
    },
    async count() {
      return count.get() as number;
    },
    async stamp(): Promise<KnowledgeStamp> {
      return db.transaction(() => ({ pages: count.get() as number, lastRevisionId: (newest.get() as number | null) ?? 0 }))();
    },
    async changedSince(afterRevisionId: number, limit = 5_000) {
      const rows = changed.all(afterRevisionId, limit) as { id: number; pageId: string }[];
      return { pageIds: [...new Set(rows.map((r) => r.pageId))], lastRevisionId: rows.at(-1)?.id ?? afterRevisionId };
    },
    async batchAfter(afterId: string, size: number) {
      return (after.all(afterId, size) as PageRow[]).map(toPage);
    },
    async versions() {
      return new Map((versions.all() as { id: string; revision: number }[]).map((r) => [r.id, r.revision]));
    },
    close() {
      if (db.open) db.close();
    },
  };
}
