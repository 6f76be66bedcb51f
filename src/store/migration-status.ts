// Which committed migrations a database still lacks, read without applying them (`parley doctor`):
// the ledger `migrate` writes, compared with prisma/migrations. A SQLite file that does not exist
// yet is reported as such, not created.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { DatabaseTarget } from '../config/config.ts';
import { StoreError } from './errors.ts';
import { checkLedger, readMigrations } from './migrate.ts';

export type MigrationStatus = { kind: 'missing' } | { kind: 'read'; applied: number; pending: string[] };

function sqliteLedger(file: string): Map<string, string> | undefined {
  if (file !== ':memory:' && !existsSync(file)) return undefined;
  const db = new Database(file, { readonly: file !== ':memory:', fileMustExist: file !== ':memory:', timeout: 5_000 });
  try {
    const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_parley_migrations'`).get();
    if (!table) return new Map();
    const rows = db.prepare('SELECT "name", "checksum" FROM "_parley_migrations"').all() as { name: string; checksum: string }[];
    return new Map(rows.map((r) => [r.name, r.checksum]));
  } finally {
    db.close();
  }
}

async function postgresLedger(url: string): Promise<Map<string, string>> {
  const { default: pgModule } = await import('pg');
  const client = new pgModule.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows: exists } = await client.query<{ present: boolean }>(`SELECT to_regclass('"_parley_migrations"') IS NOT NULL AS present`);
    if (!exists[0]?.present) return new Map();
    const { rows } = await client.query<{ name: string; checksum: string }>('SELECT "name", "checksum" FROM "_parley_migrations"');
    return new Map(rows.map((r) => [r.name, r.checksum]));
  } finally {
    await client.end();
  }
}

/** Throws a StoreError when the database cannot be read, or its ledger does not match this code. */
export async function migrationStatus(target: DatabaseTarget): Promise<MigrationStatus> {
  try {
    const ledger = target.provider === 'sqlite' ? sqliteLedger(target.file) : await postgresLedger(target.url);
    if (!ledger) return { kind: 'missing' };
    const pending = checkLedger(readMigrations(target.provider), ledger);
    return { kind: 'read', applied: ledger.size, pending: pending.map((m) => m.name) };
  } catch (error) {
    throw StoreError.from(error, target);
  }
}
