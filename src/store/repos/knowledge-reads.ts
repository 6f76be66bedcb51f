// Reading knowledge pages and their revisions: the running bot's retrieval, the CLI's list, show
// and history, and the search index's change feed (src/knowledge/search).
import { intColumn } from '../sql/columns.ts';
import type { SqlRunner, SqlValue } from '../sql/driver.ts';
import { TABLES } from '../sql/tables.ts';
import type { KnowledgePageListing, KnowledgePageRecord, KnowledgeRevisionRecord } from './knowledge-types.ts';
import {
  LISTING_COLUMNS,
  listingRow,
  PAGE_COLUMNS,
  pageRow,
  parseList,
  REVISION_COLUMNS,
  revisionRow,
  toPage,
  toRevision,
} from './knowledge-rows.ts';

/** What the search index needs to know to stay in step with the pages. */
export interface KnowledgeStamp {
  pages: number;
  /** Id of the newest revision row: it grows with every create, update and revert. */
  lastRevisionId: number;
}

const changeRow = TABLES.KnowledgeRevision.pick({ id: true, pageId: true });
const versionRow = TABLES.KnowledgePage.pick({ id: true, revision: true });

export function knowledgeReads(sql: SqlRunner & { readonly provider: 'sqlite' | 'postgresql' }) {
  const pages = async (where: string, values: SqlValue[]) =>
    (await sql.all(`SELECT ${PAGE_COLUMNS} FROM "KnowledgePage" ${where}`, values)).map((row) => toPage(pageRow.parse(row)));
  const revisions = async (where: string, values: SqlValue[]) =>
    (await sql.all(`SELECT ${REVISION_COLUMNS} FROM "KnowledgeRevision" ${where}`, values)).map((row) =>
      toRevision(revisionRow.parse(row)),
    );
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

    async count(): Promise<number> {
      return intColumn.parse((await sql.all(`SELECT COUNT(*) AS "n" FROM "KnowledgePage"`))[0]?.n);
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
