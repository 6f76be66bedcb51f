// Knowledge pages and their revisions. Every change of a page writes a revision (the newest one
// equals the page), in one transaction with the page itself; an unchanged page writes nothing.
import { createHash, randomUUID } from 'node:crypto';
import type { Db, Tx } from '../database.ts';
import { isUniqueViolation } from '../database.ts';
import type { DatabaseTarget } from '../../config/config.ts';
import { sqliteSaveMany } from './knowledge-bulk.ts';

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

function toRevision(row: RevisionRow): KnowledgeRevisionRecord {
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
      id: randomUUID(),
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
      id: randomUUID(),
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

export function knowledgeRepo(db: Db, target?: DatabaseTarget) {
  return {
    async get(slug: string): Promise<KnowledgePageRecord | undefined> {
      const row = await db.knowledgePage.findUnique({ where: { slug } });
      return row ? toPage(row) : undefined;
    },

    async getByIds(ids: string[]): Promise<KnowledgePageRecord[]> {
      if (ids.length === 0) return [];
      const rows = await db.knowledgePage.findMany({ where: { id: { in: ids } } });
      return rows.map(toPage);
    },

    /** Pages in slug order, without their content. */
    async list(options: { limit?: number; offset?: number; tag?: string; prefix?: string } = {}): Promise<KnowledgePageListing[]> {
      const rows = await db.knowledgePage.findMany({
        where: {
          ...(options.tag ? { tags: { contains: JSON.stringify(options.tag) } } : {}),
          ...(options.prefix ? { slug: { startsWith: options.prefix } } : {}),
        },
        select: {
          id: true,
          slug: true,
          title: true,
          summary: true,
          tags: true,
          source: true,
          revision: true,
          hash: true,
          createdAt: true,
          updatedAt: true,
        },
        orderBy: { slug: 'asc' },
        take: options.limit ?? 100,
        skip: options.offset ?? 0,
      });
      return rows.map((row) => ({ ...row, tags: parseList(row.tags) }));
    },

    /** Pages in id order after `afterId`, for building the search index in batches. */
    async batchAfter(afterId: string, size: number): Promise<KnowledgePageRecord[]> {
      const rows = await db.knowledgePage.findMany({ where: { id: { gt: afterId } }, orderBy: { id: 'asc' }, take: size });
      return rows.map(toPage);
    },

    async count(): Promise<number> {
      return db.knowledgePage.count();
    },

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

    /** Deletes the page and its revisions; true when it existed. */
    async remove(slug: string): Promise<boolean> {
      const { count } = await db.knowledgePage.deleteMany({ where: { slug } });
      return count > 0;
    },

    /** Revisions of a page, newest first (undefined when there is no such page). */
    async history(slug: string): Promise<KnowledgeRevisionRecord[] | undefined> {
      const page = await db.knowledgePage.findUnique({ where: { slug }, select: { id: true } });
      if (!page) return undefined;
      const rows = await db.knowledgeRevision.findMany({ where: { pageId: page.id }, orderBy: { revision: 'desc' } });
      return rows.map(toRevision);
    },

    async revision(slug: string, revision: number): Promise<KnowledgeRevisionRecord | undefined> {
      const row = await db.knowledgeRevision.findFirst({ where: { revision, page: { slug } } });
      return row ? toRevision(row) : undefined;
    },

    async stamp(): Promise<KnowledgeStamp> {
      const [pages, newest] = await Promise.all([db.knowledgePage.count(), db.knowledgeRevision.aggregate({ _max: { id: true } })]);
      return { pages, lastRevisionId: newest._max.id ?? 0 };
    },

    /** Ids of pages with a revision newer than `afterRevisionId`, and the newest revision id seen. */
    async changedSince(afterRevisionId: number, limit = 5_000): Promise<{ pageIds: string[]; lastRevisionId: number }> {
      const rows = await db.knowledgeRevision.findMany({
        where: { id: { gt: afterRevisionId } },
        select: { id: true, pageId: true },
        orderBy: { id: 'asc' },
        take: limit,
      });
      return { pageIds: [...new Set(rows.map((r) => r.pageId))], lastRevisionId: rows.at(-1)?.id ?? afterRevisionId };
    },

    /** Every page's id and revision, to reconcile the search index with. */
    async versions(): Promise<Map<string, number>> {
      const rows = await db.knowledgePage.findMany({ select: { id: true, revision: true } });
      return new Map(rows.map((r) => [r.id, r.revision]));
    },
  };
}

export type KnowledgeRepo = ReturnType<typeof knowledgeRepo>;
