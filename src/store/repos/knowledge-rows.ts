// The knowledge tables' rows as the SQL driver returns them (src/store/sql/tables.ts), and the
// records the rest of Parley sees: tags and references are JSON arrays of strings in the database.
import { columnList, type Row, TABLES } from '../sql/tables.ts';
import type { KnowledgePageFields, KnowledgePageRecord, KnowledgeRevisionRecord } from './knowledge-types.ts';

export type PageRow = Row<'KnowledgePage'>;
export type RevisionRow = Row<'KnowledgeRevision'>;

export const PAGE_FIELDS = Object.keys(TABLES.KnowledgePage.shape) as (keyof PageRow)[];
export const REVISION_FIELDS = Object.keys(TABLES.KnowledgeRevision.shape).filter((column) => column !== 'id') as (keyof Omit<
  RevisionRow,
  'id'
>)[];
export const PAGE_COLUMNS = columnList(PAGE_FIELDS);

export const pageRow = TABLES.KnowledgePage;
export const listingRow = pageRow.omit({ content: true, references: true });
export const LISTING_COLUMNS = columnList(Object.keys(listingRow.shape));
export const revisionRow = TABLES.KnowledgeRevision.omit({ id: true, pageId: true });
export const REVISION_COLUMNS = columnList(Object.keys(revisionRow.shape));

export function parseList(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function toPage(row: PageRow): KnowledgePageRecord {
  return { ...row, tags: parseList(row.tags), references: parseList(row.references) };
}

export function toRevision(row: Omit<RevisionRow, 'id' | 'pageId'>): KnowledgeRevisionRecord {
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
export function knowledgeHash(fields: Omit<KnowledgePageFields, 'slug'>): string {
  // node:crypto loaded on use: `parley knowledge search` loads this module and hashes nothing.
  return process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(JSON.stringify([fields.title, fields.summary, fields.content, fields.tags, fields.references]))
    .digest('hex');
}
