// prisma/schema.prisma is the source of truth; prisma/migrations/ is what databases are built with
// (src/store/migrate.ts). The two must describe the same tables: a database built by the committed
// migrations is compared with one built from the schema by Prisma's own SQL (`prisma migrate diff
// --from-empty --to-schema-datamodel … --script`, as `npm run db:migration` writes migrations), on
// SQLite and on PostgreSQL: every column with its type, nullability, default and key, every index
// and every foreign key. A migration deleted, or a field added to the schema without its migration
// (or the other way round), fails here. (`migrate diff --from-migrations` needs a shadow database
// the WebAssembly engine cannot use here, and `--from-url` is refused in adapter mode.)
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { migrate } from '../../src/store/migrate.ts';
import { migrationSql, sqliteSchemaPath, writePostgresSchema } from '../../scripts/prisma-schemas.mjs';
import { tempDir } from '../helpers/harness.ts';

/**
 * What the migrations hold that a Prisma schema cannot say, each with its migration. Listed here
 * so the comparison stays exact: each must be in the migrated database, and nothing else may differ.
 */
const MIGRATIONS_ONLY = [
  // 0007_owed_answers: a partial index (WHERE "replyState" IS NOT NULL).
  /^Turn index Turn_replyState_idx\b/,
];

const LEDGER = '_parley_migrations';
const dir = tempDir('parley-drift-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The schema's SQL for `provider`, from Prisma. */
function schemaSql(provider: 'sqlite' | 'postgresql'): string {
  const schema =
    provider === 'sqlite' ? sqliteSchemaPath : writePostgresSchema(readFileSync(sqliteSchemaPath, 'utf8'), join(dir, 'postgresql.prisma'));
  return migrationSql(undefined, schema, join(dir, 'prisma-cli.db'));
}

/** One line per column, index and foreign key of every table but the migrator's ledger, sorted. */
function describeSqlite(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare(`SELECT "name" FROM sqlite_master WHERE "type" = 'table' AND "name" NOT LIKE 'sqlite_%' AND "name" <> ?`)
      .pluck()
      .all(LEDGER) as string[];
    const partial = db.prepare(`SELECT "sql" FROM sqlite_master WHERE "type" = 'index' AND "name" = ?`).pluck();
    return tables
      .flatMap((table) => {
        const columns = db.pragma(`table_xinfo("${table}")`) as {
          name: string;
          type: string;
          notnull: number;
          dflt_value: string | null;
          pk: number;
        }[];
        const indexes = db.pragma(`index_list("${table}")`) as { name: string; unique: number; origin: string; partial: number }[];
        const keys = db.pragma(`foreign_key_list("${table}")`) as {
          table: string;
          from: string;
          to: string;
          on_update: string;
          on_delete: string;
        }[];
        return [
          ...columns.map((c) => `${table} column ${c.name} ${c.type}${c.notnull ? ' NOT NULL' : ''} default ${c.dflt_value} pk ${c.pk}`),
          ...indexes.map((i) => {
            const on = (db.pragma(`index_info("${i.name}")`) as { name: string }[]).map((c) => c.name).join(', ');
            const where = i.partial
              ? ` ${String(partial.get(i.name))
                  .replace(/^[^)]*\)/, '')
                  .trim()}`
              : '';
            return `${table} index ${i.name} (${on})${i.unique ? ' unique' : ''} ${i.origin}${where}`;
          }),
          ...keys.map((k) => `${table} foreign key ${k.from} → ${k.table}.${k.to} on update ${k.on_update} on delete ${k.on_delete}`),
        ];
      })
      .sort();
  } finally {
    db.close();
  }
}

async function describePostgres(client: pg.Client): Promise<string[]> {
  const columns = await client.query<Record<string, string | null>>(
    `SELECT table_name, column_name, data_type, is_nullable, column_default, datetime_precision
       FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> $1`,
    [LEDGER],
  );
  const indexes = await client.query<Record<string, string>>(
    'SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename <> $1',
    [LEDGER],
  );
  const constraints = await client.query<Record<string, string>>(
    `SELECT c.relname AS "table", k.conname, pg_get_constraintdef(k.oid) AS def FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
      WHERE k.connamespace = current_schema()::regnamespace AND c.relname <> $1`,
    [LEDGER],
  );
  return [
    ...columns.rows.map(
      (c) =>
        `${c.table_name} column ${c.column_name} ${c.data_type}(${c.datetime_precision ?? ''})${c.is_nullable === 'NO' ? ' NOT NULL' : ''} default ${c.column_default}`,
    ),
    ...indexes.rows.map((i) => `${i.tablename} index ${i.indexname} ${i.indexdef}`),
    ...constraints.rows.map((k) => `${k.table} constraint ${k.conname} ${k.def}`),
  ].sort();
}

/** The description of the migrated database, less what only migrations can hold (each must be there). */
function comparable(migrated: string[]): string[] {
  for (const only of MIGRATIONS_ONLY) expect(migrated.filter((line) => only.test(line))).toHaveLength(1);
  return migrated.filter((line) => !MIGRATIONS_ONLY.some((only) => only.test(line)));
}

describe('the committed migrations and prisma/schema.prisma', () => {
  it('build the same SQLite tables', { timeout: 60_000 }, async () => {
    const migrated = join(dir, 'migrated.db');
    await migrate(parseDatabaseUrl(`file:${migrated}`));
    const fromSchema = new Database(join(dir, 'schema.db'));
    fromSchema.exec(schemaSql('sqlite'));
    fromSchema.close();
    const expected = describeSqlite(join(dir, 'schema.db'));
    expect(expected.length).toBeGreaterThan(100);
    expect(comparable(describeSqlite(migrated))).toEqual(expected);
  });

  const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;
  it.runIf(adminUrl)('build the same PostgreSQL tables', { timeout: 60_000 }, async () => {
    const names = ['migrated', 'schema'].map((kind) => `parley_drift_${kind}_${randomBytes(4).toString('hex')}`);
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    const urlOf = (name: string) => {
      const url = new URL(adminUrl!);
      url.pathname = `/${name}`;
      return url.toString();
    };
    const described: string[][] = [];
    try {
      for (const name of names) await admin.query(`CREATE DATABASE ${name}`);
      await migrate(parseDatabaseUrl(urlOf(names[0]!)));
      for (const [k, name] of names.entries()) {
        const client = new pg.Client({ connectionString: urlOf(name) });
        await client.connect();
        try {
          if (k === 1) await client.query(schemaSql('postgresql'));
          described.push(await describePostgres(client));
        } finally {
          await client.end();
        }
      }
    } finally {
      for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
    const [migrated, expected] = described as [string[], string[]];
    expect(expected.length).toBeGreaterThan(100);
    expect(comparable(migrated)).toEqual(expected);
  });
});
