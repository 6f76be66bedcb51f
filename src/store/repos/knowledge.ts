// Knowledge pages and their revisions. Every change of a page writes a revision (the newest one
// equals the page), in one transaction with the page itself; an unchanged page writes nothing.
import { createHash } from 'node:crypto';
import type { Db, Tx } from '../database.ts';
import { isUniqueViolation } from '../database.ts';
import type { DatabaseTarget } from '../../config/config.ts';
import { z } from 'zod';
import { dateColumn, intColumn } from '../sql/columns.ts';
import type { SqlDriver, SqlValue } from '../sql/driver.ts';
import { timeOrderedId } from '../time-ordered-id.ts';
import { PAGE_COLUMNS, sqliteSaveMany } from './knowledge-bulk.ts';

export type {
  KnowledgePageFields,
  KnowledgePageListing,
  KnowledgePageRecord,
  KnowledgeRevisionRecord,
  KnowledgeSaveOptions,
  KnowledgeSaveResult,
} from './knowledge-types.ts';
import type {
  KnowledgePageFields,
  KnowledgePageListing,
  KnowledgePageRecord,
  KnowledgeRevisionRecord,
  KnowledgeSaveOptions,
  KnowledgeSaveResult,
} from './knowledge-types.ts';

/** What the search index needs to know to stay in step with the pages. */
export interface KnowledgeStamp {
  pages: number;
  /** Id of the newest revision row: it grows with every create, update and revert. */
  lastRevisionId: number;
}

type PageRow = Awaited<ReturnType<Db['knowledgePage']['findUniqueOrThrow']>>;
type RevisionRow = Awaited<ReturnType<Db['knowledgeRevision']['findUniqueOrThrow']>>;

const REVISION_COLUMNS = `"revision", "title", "summary", "content", "tags", "references", "source", "author", "note", "hash", "createdAt"`;
const LISTING_COLUMNS = `"id", "slug", "title", "summary", "tags", "source", "revision", "hash", "createdAt", "updatedAt"`;

const listingRow = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  summary: z.string(),
  tags: z.string(),
  source: z.string(),
  revision: intColumn,
  hash: z.string(),
  createdAt: dateColumn,
  updatedAt: dateColumn,
});
const pageRow = listingRow.extend({ content: z.string(), references: z.string() });
const revisionRow = z.object({
  revision: intColumn,
  title: z.string(),
  summary: z.string(),
  content: z.string(),
  tags: z.string(),
  references: z.string(),
  source: z.string(),
  author: z.string().nullable(),
  note: z.string().nullable(),
  hash: z.string(),
  createdAt: dateColumn,
});
const changeRow = z.object({ id: intColumn, pageId: z.string() });
const versionRow = z.object({ id: z.string(), revision: intColumn });

function parseList(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function toPage(row: PageRow): KnowledgePageRecord {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    content: row.content,
    tags: parseList(row.tags),
    references: parseList(row.references),
    source: row.source,
    revision: row.revision,
    hash: row.hash,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toRevision(row: Omit<RevisionRow, 'id' | 'pageId'>): KnowledgeRevisionRecord {
  return {
    revision: row.revision,
    title: row.title,
    summary: row.summary,
    content: row.content,
    tags: parseList(row.tags),
    references: parseList(row.references),
    source: row.source,
    author: row.author ?? undefined,
    note: row.note ?? undefined,
    hash: row.hash,
    createdAt: row.createdAt,
  };
}

/** Hash of what makes a page's content (not its slug or where it came from), for idempotent imports. */
function knowledgeHash(fields: Omit<KnowledgePageFields, 'slug'>): string {
  return createHash('sha256')
    .update(JSON.stringify([fields.title, fields.summary, fields.content, fields.tags, fields.references]))
    .digest('hex');
}

function columns(fields: KnowledgePageFields) {
  return {
    title: fields.title,
    summary: fields.summary,
    content: fields.content,
    tags: JSON.stringify(fields.tags),
    references: JSON.stringify(fields.references),
  };
}

async function saveIn(tx: Tx, fields: KnowledgePageFields, options: KnowledgeSaveOptions): Promise<KnowledgeSaveResult> {
  const hash = knowledgeHash(fields);
  const existing = await tx.knowledgePage.findUnique({ where: { slug: fields.slug } });
  const expected = options.expectedRevision;
  if (expected !== undefined && (existing?.revision ?? 0) !== expected) {
    return { status: 'conflict', page: existing ? toPage(existing) : undefined };
  }
  const revisionData = { ...columns(fields), source: options.source, author: options.author ?? null, note: options.note ?? null, hash };
  if (!existing) {
    const now = new Date();
    const draft: PageRow = {
      id: timeOrderedId(),
      slug: fields.slug,
      ...columns(fields),
      source: options.source,
      revision: 1,
      hash,
      createdAt: now,
      updatedAt: now,
    };
    if (options.dryRun) return { status: 'created', page: toPage(draft) };
    const { createdAt: _c, updatedAt: _u, ...data } = draft;
    const row = await tx.knowledgePage.create({ data });
    await tx.knowledgeRevision.create({ data: { pageId: row.id, revision: 1, ...revisionData } });
    return { status: 'created', page: toPage(row) };
  }
  if (existing.hash === hash) return { status: 'unchanged', page: toPage(existing) };
  const revision = existing.revision + 1;
  if (options.dryRun)
    return { status: 'updated', page: toPage({ ...existing, ...columns(fields), source: options.source, revision, hash }) };
  // Conditional on the revision read above, so two concurrent writers cannot both win.
  const { count } = await tx.knowledgePage.updateMany({
    where: { id: existing.id, revision: existing.revision },
    data: { ...columns(fields), source: options.source, revision, hash },
  });
  if (count !== 1) return { status: 'conflict', page: toPage(existing) };
  await tx.knowledgeRevision.create({ data: { pageId: existing.id, revision, ...revisionData } });
  const row = await tx.knowledgePage.findUniqueOrThrow({ where: { id: existing.id } });
  return { status: 'updated', page: toPage(row) };
}

/**
 * Saves many pages in one transaction, as saveIn would one by one (an import's batch): new pages
 * and their first revisions are inserted together, changed ones updated one by one.
 */
async function saveManyIn(
  tx: Tx,
  pages: (KnowledgePageFields & { note?: string })[],
  options: KnowledgeSaveOptions,
): Promise<KnowledgeSaveResult[]> {
  if (options.expectedRevision !== undefined || pages.some((page) => page.note !== undefined)) {
    const results: KnowledgeSaveResult[] = [];
    for (const { note, ...page } of pages) results.push(await saveIn(tx, page, note === undefined ? options : { ...options, note }));
    return results;
  }
  const existing = new Map(
    (await tx.knowledgePage.findMany({ where: { slug: { in: pages.map((p) => p.slug) } } })).map((row) => [row.slug, row]),
  );
  const results: KnowledgeSaveResult[] = [];
  const created: PageRow[] = [];
  const now = new Date();
  for (const fields of pages) {
    const row = existing.get(fields.slug);
    if (row) {
      // Rare in an import: changed pages go the careful way (conditional update).
      const result =
        row.hash === knowledgeHash(fields) ? { status: 'unchanged' as const, page: toPage(row) } : await saveIn(tx, fields, options);
      if (result.status !== 'unchanged' && result.status !== 'conflict')
        existing.set(fields.slug, { ...row, ...columns(fields), revision: result.page.revision, hash: result.page.hash });
      results.push(result);
      continue;
    }
    const draft: PageRow = {
      id: timeOrderedId(),
      slug: fields.slug,
      ...columns(fields),
      source: options.source,
      revision: 1,
      hash: knowledgeHash(fields),
      createdAt: now,
      updatedAt: now,
    };
    existing.set(fields.slug, draft);
    created.push(draft);
    results.push({ status: 'created', page: toPage(draft) });
  }
  if (!options.dryRun && created.length) {
    await tx.knowledgePage.createMany({ data: created });
    await tx.knowledgeRevision.createMany({
      data: created.map((row) => ({
        pageId: row.id,
        revision: 1,
        ...columns({ ...row, tags: parseList(row.tags), references: parseList(row.references) }),
        source: options.source,
        author: options.author ?? null,
        note: options.note ?? null,
        hash: row.hash,
        createdAt: now,
      })),
    });
  }
  return results;
}

/**
 * Reads and removals run on the store's SQL driver (a running bot reads pages, so it never loads
 * Prisma for them); saves, which the CLI and the admin tools make, go through Prisma (`db`).
 */
export function knowledgeRepo(db: Db, sql: SqlDriver, target?: DatabaseTarget) {
  const pages = async (where: string, values: SqlValue[]) =>
    (await sql.all(`SELECT ${PAGE_COLUMNS} FROM "KnowledgePage" ${where}`, values)).map((row) => toPage(pageRow.parse(row)));
  const revisions = async (where: string, values: SqlValue[]) =>
    (await sql.all(`SELECT ${REVISION_COLUMNS} FROM "KnowledgeRevision" ${where}`, values)).map((row) =>
      toRevision(revisionRow.parse(row)),
    );
  const count = async () => intColumn.parse((await sql.all(`SELECT COUNT(*) AS "n" FROM "KnowledgePage"`))[0]?.n);
  return {
    async get(slug: string): Promise<KnowledgePageRecord | undefined> {
      return (await pages(`WHERE "slug" = $1`, [slug]))[0];
    },

    async getByIds(ids: string[]): Promise<KnowledgePageRecord[]> {
      if (ids.length === 0) return [];
      return pages(`WHERE "id" IN (${ids.map((_, i) => `$${i + 1}`).join(', ')})`, ids);
    },

    /** Pages in slug order, without their content. */
    async list(options: { limit?: number; offset?: number; tag?: string; prefix?: string } = {}): Promise<KnowledgePageListing[]> {
      const where: string[] = [];
      const values: SqlValue[] = [];
      const contains = sql.provider === 'sqlite' ? 'instr' : 'strpos';
      if (options.tag) where.push(`${contains}("tags", $${values.push(JSON.stringify(options.tag))}) > 0`);
      if (options.prefix) where.push(`substr("slug", 1, length($${values.push(options.prefix)})) = $${values.push(options.prefix)}`);
      const rows = await sql.all(
        `SELECT ${LISTING_COLUMNS} FROM "KnowledgePage"${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
          ORDER BY "slug" ASC LIMIT $${values.push(options.limit ?? 100)} OFFSET $${values.push(options.offset ?? 0)}`,
        values,
      );
      return rows.map((row) => {
        const listing = listingRow.parse(row);
        return { ...listing, tags: parseList(listing.tags) };
      });
    },

    /** Pages in id order after `afterId`, for building the search index in batches. */
    async batchAfter(afterId: string, size: number): Promise<KnowledgePageRecord[]> {
      return pages(`WHERE "id" > $1 ORDER BY "id" ASC LIMIT $2`, [afterId, size]);
    },

    count,

    async save(fields: KnowledgePageFields, options: KnowledgeSaveOptions): Promise<KnowledgeSaveResult> {
      if (options.dryRun) return saveIn(db, fields, options);
      try {
        return await db.$transaction((tx) => saveIn(tx, fields, options));
      } catch (error) {
        // Another writer created the same slug first: the page exists now, so this is an update.
        if (!isUniqueViolation(error)) throw error;
        return db.$transaction((tx) => saveIn(tx, fields, options));
      }
    },

    /**
     * Saves pages in one transaction (an import's batch); the same outcome per page as save().
     * A page's own `note` (e.g. the file it came from) wins over the options' note.
     */
    async saveMany(pages: (KnowledgePageFields & { note?: string })[], options: KnowledgeSaveOptions): Promise<KnowledgeSaveResult[]> {
      if (pages.length === 0) return [];
      if (target?.provider === 'sqlite' && target.file !== ':memory:') return sqliteSaveMany(target.file, pages, options, knowledgeHash);
      if (options.dryRun) return saveManyIn(db, pages, options);
      try {
        return await db.$transaction((tx) => saveManyIn(tx, pages, options), { timeout: 120_000 });
      } catch (error) {
        // Another writer created one of the slugs first: page by page sorts it out.
        if (!isUniqueViolation(error)) throw error;
        const results: KnowledgeSaveResult[] = [];
        for (const { note, ...page } of pages) results.push(await this.save(page, note === undefined ? options : { ...options, note }));
        return results;
      }
    },

    /** Deletes the page and its revisions (the foreign key cascades); true when it existed. */
    async remove(slug: string): Promise<boolean> {
      return (
        (await sql.transaction(async (tx) => {
          await tx.run(`DELETE FROM "KnowledgeRevision" WHERE "pageId" IN (SELECT "id" FROM "KnowledgePage" WHERE "slug" = $1)`, [slug]);
          return tx.run(`DELETE FROM "KnowledgePage" WHERE "slug" = $1`, [slug]);
        })) > 0
      );
    },

    /** Revisions of a page, newest first (undefined when there is no such page). */
    async history(slug: string): Promise<KnowledgeRevisionRecord[] | undefined> {
      const page = await sql.all(`SELECT "id" FROM "KnowledgePage" WHERE "slug" = $1`, [slug]);
      const pageId = page[0]?.id;
      if (typeof pageId !== 'string') return undefined;
      return revisions(`WHERE "pageId" = $1 ORDER BY "revision" DESC`, [pageId]);
    },

    async revision(slug: string, revision: number): Promise<KnowledgeRevisionRecord | undefined> {
      const where = `WHERE "revision" = $1 AND "pageId" = (SELECT "id" FROM "KnowledgePage" WHERE "slug" = $2)`;
      return (await revisions(where, [revision, slug]))[0];
    },

    async stamp(): Promise<KnowledgeStamp> {
      const rows = await sql.all(
        `SELECT (SELECT COUNT(*) FROM "KnowledgePage") AS "pages", (SELECT MAX("id") FROM "KnowledgeRevision") AS "newest"`,
      );
      return { pages: intColumn.parse(rows[0]?.pages), lastRevisionId: intColumn.nullable().parse(rows[0]?.newest ?? null) ?? 0 };
    },

    /** Ids of pages with a revision newer than `afterRevisionId`, and the newest revision id seen. */
    async changedSince(afterRevisionId: number, limit = 5_000): Promise<{ pageIds: string[]; lastRevisionId: number }> {
      const rows = (
        await sql.all(`SELECT "id", "pageId" FROM "KnowledgeRevision" WHERE "id" > $1 ORDER BY "id" ASC LIMIT $2`, [afterRevisionId, limit])
      ).map((row) => changeRow.parse(row));
      return { pageIds: [...new Set(rows.map((r) => r.pageId))], lastRevisionId: rows.at(-1)?.id ?? afterRevisionId };
    },

    /** Every page's id and revision, to reconcile the search index with. */
    async versions(): Promise<Map<string, number>> {
      const rows = (await sql.all(`SELECT "id", "revision" FROM "KnowledgePage"`)).map((row) => versionRow.parse(row));
      return new Map(rows.map((r) => [r.id, r.revision]));
    },
  };
}

export type KnowledgeRepo = ReturnType<typeof knowledgeRepo>;
