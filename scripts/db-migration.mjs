// Writes a new committed migration: `npm run db:migration -- <name>`.
// Each folder prisma/migrations/NNNN_name/ holds the SQL for both providers and a snapshot of the
// schema it leads to; the next migration is the diff from that snapshot to prisma/schema.prisma.
// (`prisma migrate dev` does not work offline with the WebAssembly engine, `migrate diff` does.)
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrationSql, root, sqliteSchemaPath, writePostgresSchema } from './prisma-schemas.mjs';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:migration -- <name>   (lower-case letters, digits, underscores)');
  process.exit(2);
}
const migrationsDir = join(root, 'prisma', 'migrations');
mkdirSync(migrationsDir, { recursive: true });
const existing = readdirSync(migrationsDir)
  .filter((d) => /^\d{4}_/.test(d))
  .sort();
const previous = existing.at(-1);
const scratch = mkdtempSync(join(tmpdir(), 'parley-migration-'));
const diff = (fromSchema, toSchema) => migrationSql(fromSchema, toSchema, join(scratch, 'prisma-cli.db'));

const previousSqlite = previous ? join(migrationsDir, previous, 'schema.prisma') : undefined;
const previousPostgres = previousSqlite
  ? writePostgresSchema(readFileSync(previousSqlite, 'utf8'), join(scratch, 'previous-postgresql.prisma'))
  : undefined;
const currentPostgres = writePostgresSchema(readFileSync(sqliteSchemaPath, 'utf8'), join(scratch, 'current-postgresql.prisma'));

const sqliteSql = diff(previousSqlite, sqliteSchemaPath);
if (!/\S/.test(sqliteSql.replace(/^--.*$/gm, ''))) {
  console.log('No schema changes since the last migration; nothing written.');
  process.exit(0);
}
const postgresSql = diff(previousPostgres, currentPostgres);
const number = String(existing.length + 1).padStart(4, '0');
const dir = join(migrationsDir, `${number}_${name}`);
if (existsSync(dir)) throw new Error(`${dir} exists`);
mkdirSync(dir);
writeFileSync(join(dir, 'sqlite.sql'), sqliteSql);
writeFileSync(join(dir, 'postgresql.sql'), postgresSql);
copyFileSync(sqliteSchemaPath, join(dir, 'schema.prisma'));
console.log(`Wrote ${dir}`);
