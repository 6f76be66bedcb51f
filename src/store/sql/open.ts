import type { DatabaseTarget } from '../../config/config.ts';
import type { SqlDriver } from './driver.ts';
import { openPostgres } from './postgres.ts';
import { openSqlite } from './sqlite.ts';

export function openSql(target: DatabaseTarget): SqlDriver {
  return target.provider === 'sqlite' ? openSqlite(target) : openPostgres(target);
}
