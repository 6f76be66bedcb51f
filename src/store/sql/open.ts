import type { DatabaseTarget } from '../../config/config.ts';
import type { SqlDriver } from './driver.ts';
import { openSqlite } from './sqlite.ts';

/** PostgreSQL's driver (and pg) is loaded only when the database is PostgreSQL. */
export async function openSql(target: DatabaseTarget): Promise<SqlDriver> {
  if (target.provider === 'sqlite') return openSqlite(target);
  const { openPostgres } = await import('./postgres.ts');
  return openPostgres(target);
}
