// Knowledge pages and their revisions. Every change of a page writes a revision (the newest one
// equals the page), in one transaction with the page itself; an unchanged page writes nothing.
import { isUniqueViolation } from '../database.ts';
import type { SqlDriver } from '../sql/driver.ts';
import { knowledgeReads } from './knowledge-reads.ts';
import type { KnowledgePageFields, KnowledgeSaveOptions, KnowledgeSaveResult } from './knowledge-types.ts';
import { type PageToSave, savePages } from './knowledge-writes.ts';

export type {
  KnowledgePageFields,
  KnowledgePageListing,
  KnowledgePageRecord,
  KnowledgeRevisionRecord,
  KnowledgeSaveOptions,
  KnowledgeSaveResult,
} from './knowledge-types.ts';

export function knowledgeRepo(sql: SqlDriver) {
  /** One transaction (none for a dry run, which only reads). */
  const saveAll = (pages: PageToSave[], options: KnowledgeSaveOptions) =>
    options.dryRun ? savePages(sql, sql.provider, pages, options) : sql.transaction((tx) => savePages(tx, sql.provider, pages, options));
  const save = async (fields: KnowledgePageFields, options: KnowledgeSaveOptions): Promise<KnowledgeSaveResult> => {
    try {
      return (await saveAll([fields], options))[0]!;
    } catch (error) {
      // Another writer created the same slug first: the page exists now, so this is an update.
      if (!isUniqueViolation(error)) throw error;
      return (await saveAll([fields], options))[0]!;
    }
  };
  return {
    ...knowledgeReads(sql),

    save,

    /**
     * Saves pages in one transaction (an import's batch); the same outcome per page as save() one
     * by one. A page's own `note` (e.g. the file it came from) wins over the options' note.
     */
    async saveMany(pages: PageToSave[], options: KnowledgeSaveOptions): Promise<KnowledgeSaveResult[]> {
      if (pages.length === 0) return [];
      try {
        return await saveAll(pages, options);
      } catch (error) {
        // Another writer created one of the slugs first: page by page sorts it out.
        if (!isUniqueViolation(error)) throw error;
        const results: KnowledgeSaveResult[] = [];
        for (const { note, ...page } of pages) results.push(await save(page, note === undefined ? options : { ...options, note }));
        return results;
      }
    },

    /** Deletes the page and its revisions; true when it existed. */
    async remove(slug: string): Promise<boolean> {
      return (
        (await sql.transaction(async (tx) => {
          await tx.run(`DELETE FROM "KnowledgeRevision" WHERE "pageId" IN (SELECT "id" FROM "KnowledgePage" WHERE "slug" = $1)`, [slug]);
          return tx.run(`DELETE FROM "KnowledgePage" WHERE "slug" = $1`, [slug]);
        })) > 0
      );
    },
  };
}

export type KnowledgeRepo = ReturnType<typeof knowledgeRepo>;
