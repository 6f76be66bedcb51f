// The SQLite schema (prisma/schema.prisma) is the one source of truth. The PostgreSQL schema is
// derived from it: only the datasource provider/url and the client output folder differ.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const sqliteSchemaPath = join(root, 'prisma', 'schema.prisma');
export const postgresSchemaPath = join(root, 'prisma', '.derived', 'postgresql.prisma');

export function derivePostgresSchema(sqliteSchema) {
  const derived = sqliteSchema
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace(/url\s*=\s*"file:[^"]*"/, 'url      = "postgresql://localhost/parley"')
    .replace('output       = "../src/store/generated/sqlite"', 'output       = "../../src/store/generated/postgresql"');
  if (derived === sqliteSchema || !derived.includes('"postgresql"') || !derived.includes('generated/postgresql')) {
    throw new Error('prisma/schema.prisma no longer has the expected datasource/generator lines to derive the PostgreSQL schema from');
  }
  return derived;
}

export function writePostgresSchema(sqliteSchema = readFileSync(sqliteSchemaPath, 'utf8'), target = postgresSchemaPath) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, derivePostgresSchema(sqliteSchema));
  return target;
}
