// Where the search index file lives: next to a SQLite database (parley.db → parley.knowledge-index.db),
// or under ./data for PostgreSQL (one file per database URL). It is a cache and may be deleted.
import { join, resolve } from 'node:path';
import type { DatabaseTarget } from '../config/config.ts';

export function knowledgeIndexFile(database: DatabaseTarget, cwd = process.cwd()): string {
  if (database.provider === 'sqlite') {
    if (database.file === ':memory:') return ':memory:';
    return `${database.file.replace(/\.(db|sqlite3?)$/i, '')}.knowledge-index.db`;
  }
  // node:crypto loaded here only: a search on SQLite (the usual case) does not need it.
  const id = process.getBuiltinModule('node:crypto').createHash('sha256').update(database.url).digest('hex').slice(0, 12);
  return resolve(join(cwd, 'data', `knowledge-index-${id}.db`));
}
