// Saving knowledge pages: one page (the CLI, the bot's write_knowledge_page) or an import's batch,
// through the same steps. The current rows of the batch's slugs are read in one statement; each
// page is then created, updated (conditional on the revision read, so two writers cannot both
// win), left alone (same hash) or refused (`expectedRevision`), in order, so a slug twice in a
// batch behaves as two saves. Every change writes a revision equal to the page. New pages and all
// revisions are inserted a few dozen rows per statement at the end: an import of 10,000 pages is a
// few hundred statements, on SQLite and on PostgreSQL alike.
import type { SqlRunner, SqlValue } from '../sql/driver.ts';
import { columnList } from '../sql/tables.ts';
import { timeOrderedId } from '../time-ordered-id.ts';
import {
  knowledgeHash,
  PAGE_COLUMNS,
  PAGE_FIELDS,
  type PageRow,
  pageRow,
  REVISION_FIELDS,
  type RevisionRow,
  toPage,
} from './knowledge-rows.ts';
import type { KnowledgePageFields, KnowledgeSaveOptions, KnowledgeSaveResult } from './knowledge-types.ts';

export type PageToSave = KnowledgePageFields & { note?: string };
type Provider = 'sqlite' | 'postgresql';
type RevisionValues = Omit<RevisionRow, 'id'>;

/** Rows per INSERT: the largest power of two at most this, then smaller ones (few statement texts to prepare). */
const MAX_ROWS_PER_INSERT = 64;

/** INSERT INTO `table` of `rows` (their `fields`, in order), in statements of 64, 32, … rows. */
async function insertRows<R>(tx: SqlRunner, table: string, fields: readonly (keyof R)[], rows: readonly R[]): Promise<void> {
  const columns = columnList(fields as readonly string[]);
  let at = 0;
  for (let size = MAX_ROWS_PER_INSERT; size >= 1; size /= 2) {
    for (; rows.length - at >= size; at += size) {
      const values: SqlValue[] = [];
      const tuples = rows
        .slice(at, at + size)
        .map((row) => `(${fields.map((field) => `$${values.push(row[field] as SqlValue)}`).join(', ')})`);
      await tx.run(`INSERT INTO "${table}" (${columns}) VALUES ${tuples.join(', ')}`, values);
    }
  }
}

/** The current rows of `slugs`, by slug: one statement. */
async function currentRows(tx: SqlRunner, provider: Provider, slugs: string[]): Promise<Map<string, PageRow>> {
  const where =
    slugs.length === 1
      ? `"slug" = $1`
      : provider === 'sqlite'
        ? `"slug" IN (SELECT value FROM json_each($1))`
        : `"slug" IN (SELECT json_array_elements_text($1::json))`;
  const value = slugs.length === 1 ? slugs[0]! : JSON.stringify(slugs);
  const rows = await tx.all(`SELECT ${PAGE_COLUMNS} FROM "KnowledgePage" WHERE ${where}`, [value]);
  return new Map(rows.map((row) => pageRow.parse(row)).map((row) => [row.slug, row]));
}

/** The page as the database keeps it: both drivers write UTF-8, a lone surrogate as U+FFFD. */
const stored = (page: KnowledgePageFields): KnowledgePageFields => ({
  slug: page.slug.toWellFormed(),
  title: page.title.toWellFormed(),
  summary: page.summary.toWellFormed(),
  content: page.content.toWellFormed(),
  tags: page.tags.map((tag) => tag.toWellFormed()),
  references: page.references.map((reference) => reference.toWellFormed()),
});

const updatePage = `UPDATE "KnowledgePage" SET "title" = $1, "summary" = $2, "content" = $3, "tags" = $4, "references" = $5,
  "source" = $6, "revision" = $7, "hash" = $8, "updatedAt" = $9 WHERE "id" = $10 AND "revision" = $11`;

/**
 * Saves `pages` on `tx` (a transaction, or the driver itself for a dry run, which only reads):
 * one outcome per page, in order. A page's own `note` wins over the options' note.
 */
export async function savePages(
  tx: SqlRunner,
  provider: Provider,
  pages: PageToSave[],
  options: KnowledgeSaveOptions,
): Promise<KnowledgeSaveResult[]> {
  const rows = await currentRows(tx, provider, [...new Set(pages.map((page) => page.slug.toWellFormed()))]);
  const now = new Date();
  /** Pages created in this batch, not inserted yet: a later change of one changes the row to insert. */
  const created = new Map<string, PageRow>();
  const revisions: RevisionValues[] = [];
  const results: KnowledgeSaveResult[] = [];
  for (const { note, ...page } of pages) {
    const fields = stored(page);
    const hash = knowledgeHash(fields);
    const current = rows.get(fields.slug);
    const expected = options.expectedRevision;
    if (expected !== undefined && (current?.revision ?? 0) !== expected) {
      results.push({ status: 'conflict', page: current && toPage(current) });
      continue;
    }
    if (current?.hash === hash) {
      results.push({ status: 'unchanged', page: toPage(current) });
      continue;
    }
    const columns = {
      title: fields.title,
      summary: fields.summary,
      content: fields.content,
      tags: JSON.stringify(fields.tags),
      references: JSON.stringify(fields.references),
      source: options.source,
      hash,
    };
    const next: PageRow = current
      ? { ...current, ...columns, revision: current.revision + 1, updatedAt: now }
      : { id: timeOrderedId(), slug: fields.slug, ...columns, revision: 1, createdAt: now, updatedAt: now };
    if (!options.dryRun) {
      if (current && !created.has(fields.slug)) {
        const changed = await tx.run(updatePage, [
          next.title,
          next.summary,
          next.content,
          next.tags,
          next.references,
          next.source,
          next.revision,
          hash,
          now,
          current.id,
          current.revision,
        ]);
        if (changed !== 1) {
          results.push({ status: 'conflict', page: toPage(current) });
          continue;
        }
      } else {
        created.set(fields.slug, next);
      }
      const { id: pageId, slug: _slug, updatedAt: _updated, ...revision } = next;
      revisions.push({ pageId, ...revision, author: options.author ?? null, note: note ?? options.note ?? null, createdAt: now });
    }
    rows.set(fields.slug, next);
    results.push({ status: current ? 'updated' : 'created', page: toPage(next) });
  }
  await insertRows(tx, 'KnowledgePage', PAGE_FIELDS, [...created.values()]);
  await insertRows(tx, 'KnowledgeRevision', REVISION_FIELDS, revisions);
  return results;
}
