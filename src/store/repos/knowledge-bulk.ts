// An import's batch of pages written to SQLite in one transaction with prepared statements on a
// connection of its own: the same rows and outcomes as saving the pages one by one through
// Prisma (see knowledge.ts), at a small fraction of the cost (Prisma maps every row of a
// many-row insert through its query layer; an import of 100,000 pages spent most of its time there).
import Database from 'better-sqlite3';
import { timeOrderedId } from '../time-ordered-id.ts';
import type { KnowledgePageFields, KnowledgePageRecord, KnowledgeSaveOptions, KnowledgeSaveResult } from './knowledge-types.ts';

export interface PageRow {
  id: string;
  slug: string;
  title: string;
  summary: string;
  content: string;
  tags: string;
  references: string;
  source: string;
  revision: number;
  hash: string;
  createdAt: string;
  updatedAt: string;
}

/** Dates as Prisma stores them in SQLite. */
const stamp = (date: Date) => date.toISOString().replace('Z', '+00:00');

function parseList(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function toPage(row: PageRow): KnowledgePageRecord {
  return {
    ...row,
    tags: parseList(row.tags),
    references: parseList(row.references),
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  };
}

export const PAGE_COLUMNS =
  '"id", "slug", "title", "summary", "content", "tags", "references", "source", "revision", "hash", "createdAt", "updatedAt"';

export function sqliteSaveMany(
  file: string,
  pages: (KnowledgePageFields & { note?: string })[],
  options: KnowledgeSaveOptions,
  hashOf: (fields: KnowledgePageFields) => string,
): KnowledgeSaveResult[] {
  const db = new Database(file, { timeout: 15_000 });
  try {
    db.pragma('synchronous = NORMAL');
    const existing = db.prepare(`SELECT ${PAGE_COLUMNS} FROM "KnowledgePage" WHERE "slug" IN (SELECT value FROM json_each(?))`);
    const insertPage = db.prepare(`INSERT INTO "KnowledgePage" (${PAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const updatePage = db.prepare(
      'UPDATE "KnowledgePage" SET "title" = ?, "summary" = ?, "content" = ?, "tags" = ?, "references" = ?, "source" = ?, "revision" = ?, "hash" = ?, "updatedAt" = ? WHERE "id" = ? AND "revision" = ?',
    );
    const insertRevision = db.prepare(
      'INSERT INTO "KnowledgeRevision" ("pageId", "revision", "title", "summary", "content", "tags", "references", "source", "author", "note", "hash", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const work = (): KnowledgeSaveResult[] => {
      const now = stamp(new Date());
      const rows = new Map((existing.all(JSON.stringify(pages.map((p) => p.slug))) as PageRow[]).map((row) => [row.slug, row]));
      return pages.map((fields): KnowledgeSaveResult => {
        const hash = hashOf(fields);
        const current = rows.get(fields.slug);
        const expected = options.expectedRevision;
        if (expected !== undefined && (current?.revision ?? 0) !== expected)
          return { status: 'conflict', page: current && toPage(current) };
        if (current && current.hash === hash) return { status: 'unchanged', page: toPage(current) };
        const tags = JSON.stringify(fields.tags);
        const references = JSON.stringify(fields.references);
        const next: PageRow = current
          ? {
              ...current,
              title: fields.title,
              summary: fields.summary,
              content: fields.content,
              tags,
              references,
              source: options.source,
              revision: current.revision + 1,
              hash,
              updatedAt: now,
            }
          : {
              id: timeOrderedId(),
              slug: fields.slug,
              title: fields.title,
              summary: fields.summary,
              content: fields.content,
              tags,
              references,
              source: options.source,
              revision: 1,
              hash,
              createdAt: now,
              updatedAt: now,
            };
        if (!options.dryRun) {
          if (current) {
            const { changes } = updatePage.run(
              next.title,
              next.summary,
              next.content,
              tags,
              references,
              next.source,
              next.revision,
              hash,
              now,
              current.id,
              current.revision,
            );
            if (changes !== 1) return { status: 'conflict', page: toPage(current) };
          } else {
            insertPage.run(next.id, next.slug, next.title, next.summary, next.content, tags, references, next.source, 1, hash, now, now);
          }
          insertRevision.run(
            next.id,
            next.revision,
            next.title,
            next.summary,
            next.content,
            tags,
            references,
            next.source,
            options.author ?? null,
            fields.note ?? options.note ?? null,
            hash,
            now,
          );
        }
        rows.set(fields.slug, next);
        return { status: current ? 'updated' : 'created', page: toPage(next) };
      });
    };
    return options.dryRun ? work() : db.transaction(work).immediate();
  } finally {
    db.close();
  }
}
