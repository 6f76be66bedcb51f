// The SQLite schema (prisma/schema.prisma) is the one source of truth. The PostgreSQL schema is
// derived from it: only the datasource provider and url differ. Prisma's CLI turns either into SQL
// offline (`migrate diff`, the WebAssembly schema engine through prisma.config.ts): for
// `npm run db:migration` (scripts/db-migration.mjs) and the schema-drift test. Nothing at run time
// loads Prisma.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const sqliteSchemaPath = join(root, 'prisma', 'schema.prisma');
export const postgresSchemaPath = join(root, 'prisma', '.derived', 'postgresql.prisma');

export function derivePostgresSchema(sqliteSchema) {
  const derived = sqliteSchema
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace(/url\s*=\s*"file:[^"]*"/, 'url      = "postgresql://localhost/parley"');
  if (derived === sqliteSchema || !derived.includes('"postgresql"')) {
    throw new Error('prisma/schema.prisma no longer has the expected datasource lines to derive the PostgreSQL schema from');
  }
  return derived;
}

export function writePostgresSchema(sqliteSchema = readFileSync(sqliteSchemaPath, 'utf8'), target = postgresSchemaPath) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, derivePostgresSchema(sqliteSchema));
  return target;
}

/**
 * The SQL that takes a database from `fromSchema` (a schema file; undefined: empty) to `toSchema`,
 * by `prisma migrate diff --script`. `cliDatabase`: the SQLite file the CLI's adapter opens
 * (prisma.config.ts; a diff of two schemas writes nothing to it).
 */
export function migrationSql(fromSchema, toSchema, cliDatabase) {
  const from = fromSchema ? ['--from-schema-datamodel', fromSchema] : ['--from-empty'];
  const env = cliDatabase ? { ...process.env, PRISMA_CLI_DATABASE_URL: `file:${cliDatabase}` } : process.env;
  return execFileSync(
    join(root, 'node_modules', '.bin', 'prisma'),
    ['migrate', 'diff', ...from, '--to-schema-datamodel', toSchema, '--script'],
    {
      cwd: root,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}
