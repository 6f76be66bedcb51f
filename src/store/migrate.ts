// Applies the committed migrations (prisma/migrations/NNNN_name/<provider>.sql) in order, each in
// a transaction, and records them in `_parley_migrations`. Prisma's own `migrate deploy` cannot be
// used offline on PostgreSQL in this setup (see BUILD-ENVIRONMENT.md), so one small migrator serves
// both providers. Concurrent starters are serialised by the database (BEGIN IMMEDIATE on SQLite, an
// advisory lock on PostgreSQL).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type pg from 'pg';
import type { DatabaseTarget } from '../config/config.ts';
import { StoreError } from './errors.ts';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'prisma', 'migrations');

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: string[];
}

export function readMigrations(provider: DatabaseTarget['provider'], dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((name) => /^\d{4}_[a-z0-9_]+$/.test(name))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, `${provider}.sql`), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const LEDGER = `CREATE TABLE IF NOT EXISTS "_parley_migrations" (
  "name" TEXT PRIMARY KEY,
  "checksum" TEXT NOT NULL,
  "appliedAt" TEXT NOT NULL
)`;

export function checkLedger(migrations: Migration[], ledger: Map<string, string>): Migration[] {
  for (const [name, checksum] of ledger) {
    const known = migrations.find((m) => m.name === name);
    if (!known) {
      throw new StoreError(`The database has migration ${name}, which this version of Parley does not know. Is it newer than this code?`);
    }
    if (known.checksum !== checksum) {
      throw new StoreError(`Migration ${name} was changed after it was applied to this database; refusing to continue.`);
    }
  }
  return migrations.filter((m) => !ledger.has(m.name));
}

function migrateSqlite(file: string, migrations: Migration[]): MigrationReport {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { timeout: 15_000 });
  try {
    db.pragma('journal_mode = WAL');
    db.exec(LEDGER);
    db.exec('BEGIN IMMEDIATE');
    try {
      const rows = db.prepare('SELECT "name", "checksum" FROM "_parley_migrations"').all() as { name: string; checksum: string }[];
      const ledger = new Map(rows.map((r) => [r.name, r.checksum]));
      const pending = checkLedger(migrations, ledger);
      const insert = db.prepare('INSERT INTO "_parley_migrations" ("name", "checksum", "appliedAt") VALUES (?, ?, ?)');
      for (const migration of pending) {
        db.exec(migration.sql);
        insert.run(migration.name, migration.checksum, new Date().toISOString());
      }
      db.exec('COMMIT');
      return { applied: pending.map((m) => m.name), alreadyApplied: [...ledger.keys()] };
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  } finally {
    db.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<MigrationReport> {
  // Loaded here: a process on SQLite never loads pg.
  const { default: pgModule } = await import('pg');
  const client: pg.Client = new pgModule.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    try {
      // One migrator at a time across processes; released at COMMIT/ROLLBACK.
      await client.query('SELECT pg_advisory_xact_lock(7306494021)');
      await client.query(LEDGER);
      const { rows } = await client.query<{ name: string; checksum: string }>('SELECT "name", "checksum" FROM "_parley_migrations"');
      const ledger = new Map(rows.map((r) => [r.name, r.checksum]));
      const pending = checkLedger(migrations, ledger);
      for (const migration of pending) {
        await client.query(migration.sql);
        await client.query('INSERT INTO "_parley_migrations" ("name", "checksum", "appliedAt") VALUES ($1, $2, $3)', [
          migration.name,
          migration.checksum,
          new Date().toISOString(),
        ]);
      }
      await client.query('COMMIT');
      return { applied: pending.map((m) => m.name), alreadyApplied: [...ledger.keys()] };
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  } finally {
    await client.end();
  }
}

export async function migrate(target: DatabaseTarget, dir = MIGRATIONS_DIR): Promise<MigrationReport> {
  if (!existsSync(dir)) throw new StoreError(`No migrations folder at ${dir}`);
  const migrations = readMigrations(target.provider, dir);
  try {
    return target.provider === 'sqlite' ? migrateSqlite(target.file, migrations) : await migratePostgres(target.url, migrations);
  } catch (error) {
    throw StoreError.from(error, target);
  }
}
