// Opens the Prisma client for the configured database through its driver adapter.
// Both generated clients expose the same model API; the SQLite client's type stands for both.
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { DatabaseTarget } from '../config/config.ts';
import { PrismaClient as SqliteClient } from './generated/sqlite/client.ts';
import { PrismaClient as PostgresClient } from './generated/postgresql/client.ts';
import { StoreError } from './errors.ts';
import { countingAdapter } from './statement-count.ts';

export type Db = SqliteClient;
export type Tx = Omit<Db, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export async function openDatabase(target: DatabaseTarget): Promise<Db> {
  try {
    if (target.provider === 'sqlite') {
      // `timeout` is SQLite's busy timeout: writers from other processes wait instead of failing.
      const adapter = countingAdapter(new PrismaBetterSQLite3({ url: target.file, timeout: 15_000 }));
      const db = new SqliteClient({ adapter });
      await db.$connect();
      // WAL (set by the migrator, persistent) + NORMAL: no fsync per commit, still crash-safe
      // for the database file; the last commits may be lost on power failure.
      await db.$queryRawUnsafe('PRAGMA synchronous = NORMAL');
      return db;
    }
    const adapter = countingAdapter(new PrismaPg({ connectionString: target.url, max: 10 }));
    const db = new PostgresClient({ adapter }) as unknown as Db;
    await db.$connect();
    return db;
  } catch (error) {
    throw StoreError.from(error, target);
  }
}

const UNIQUE_VIOLATIONS = new Set(['P2002', '23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** A unique constraint violation, from Prisma or from the store's SQL driver (a StoreError's cause). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  if (code !== undefined && UNIQUE_VIOLATIONS.has(code)) return true;
  return error instanceof Error && error.cause !== undefined && error.cause !== error && isUniqueViolation(error.cause);
}
