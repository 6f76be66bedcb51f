// A read-only view of the knowledge pages of a SQLite database for `parley knowledge search`: the
// store's SQL driver on the file and the repository's read functions, without the migration check
// or the rest of the store (most of the command's start-up).
import { existsSync } from 'node:fs';
import type { DatabaseTarget } from '../../config/config.ts';
import { openSqlite } from '../sql/sqlite.ts';
import { knowledgeReads } from './knowledge-reads.ts';
import type { KnowledgeRepo } from './knowledge.ts';

export type KnowledgeReader = Pick<KnowledgeRepo, 'getByIds' | 'count' | 'stamp' | 'changedSince' | 'batchAfter' | 'versions'> & {
  close(): Promise<void>;
};

/** A reader on the database, or undefined when there is no such database with knowledge pages yet. */
export async function openKnowledgeReader(target: Extract<DatabaseTarget, { provider: 'sqlite' }>): Promise<KnowledgeReader | undefined> {
  if (!existsSync(target.file)) return undefined;
  let sql: ReturnType<typeof openSqlite>;
  try {
    sql = openSqlite(target);
  } catch {
    return undefined;
  }
  const tables = await sql.all(`SELECT "name" FROM sqlite_master WHERE type = 'table' AND name IN ('KnowledgePage', 'KnowledgeRevision')`);
  if (tables.length !== 2) {
    await sql.close();
    return undefined;
  }
  const { getByIds, count, stamp, changedSince, batchAfter, versions } = knowledgeReads(sql);
  return { getByIds, count, stamp, changedSince, batchAfter, versions, close: () => sql.close() };
}
