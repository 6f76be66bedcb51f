// One bot process per SQLite database. The runtime holds an exclusive SQLite lock on a small file
// beside the database (`<db>.lock`) for its whole life; the operating system drops it when the
// process ends, however it ends (kill -9 included), so there is nothing stale to clean up. The
// database itself is not locked: the `parley` CLI keeps working while the bot runs.
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { DatabaseTarget } from '../config/config.ts';
import { StoreError } from './errors.ts';

export class DatabaseInUseError extends StoreError {}

export interface RuntimeLock {
  /** True when this process is the only runtime on the database (SQLite). */
  readonly exclusive: boolean;
  release(): void;
}

/** Referenced for the process's lifetime: a collected connection would drop its lock. */
const held = new Set<Database.Database>();

function lockFileOf(databaseFile: string): string {
  return `${databaseFile}.lock`;
}

/**
 * Takes the runtime lock for a SQLite database, or throws DatabaseInUseError at once when another
 * process holds it. PostgreSQL serves several processes and needs no lock.
 */
export function acquireRuntimeLock(target: DatabaseTarget): RuntimeLock {
  if (target.provider !== 'sqlite') return { exclusive: false, release() {} };
  // An in-memory database is private to its process anyway.
  if (target.file === ':memory:') return { exclusive: true, release() {} };
  let db: Database.Database | undefined;
  try {
    mkdirSync(dirname(target.file), { recursive: true });
    // Beside the real file, so a symlink to the database finds the same lock.
    const file = lockFileOf(existsSync(target.file) ? realpathSync(target.file) : target.file);
    db = new Database(file, { timeout: 0 });
    // No journal file beside the lock; the lock is kept after the first transaction starts.
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db?.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new DatabaseInUseError(
        `The database ${target.file} is in use by another Parley process. SQLite serves one bot process per database file: ` +
          'stop the other one (the parley CLI may run alongside it), or use PostgreSQL (DATABASE_URL=postgresql://...) to run several processes.',
        { cause: error },
      );
    }
    throw StoreError.from(error, target);
  }
  const connection = db;
  held.add(connection);
  return {
    exclusive: true,
    release() {
      if (!held.delete(connection)) return;
      connection.close();
    },
  };
}
