// The store's row types (src/store/sql/tables.ts) against prisma/schema.prisma, the source of
// truth, and against the tables the committed migrations build, on SQLite and on PostgreSQL: a
// column added to the schema and not to the row types (or the other way round, or with another
// type or nullability) fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLUMN_TYPES, TABLES } from '../../src/store/sql/tables.ts';
import { backends, storeFor } from './backends.ts';

/** model → field → Prisma type (`?` when optional), relation fields left out. */
function schemaColumns(schema: string): Record<string, Record<string, string>> {
  const models = [...schema.matchAll(/^model (\w+) \{$([\s\S]*?)^\}$/gm)].map((m) => [m[1]!, m[2]!] as const);
  const names = new Set(models.map(([name]) => name));
  return Object.fromEntries(
    models.map(([name, body]) => {
      const fields = body
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('//') && !line.startsWith('@@'))
        .map((line) => line.split(/\s+/) as [string, string])
        .filter(([, type]) => !names.has(type.replace(/[?[\]]/g, '')));
      return [name, Object.fromEntries(fields)];
    }),
  );
}

const rowTypes = () =>
  Object.fromEntries(
    Object.entries(TABLES).map(([table, row]) => [
      table,
      Object.fromEntries(Object.entries(row.shape).map(([column, type]) => [column, COLUMN_TYPES.get(type) ?? 'not a column type'])),
    ]),
  );

describe('the row types', () => {
  it('have every table and column of prisma/schema.prisma, with its type and nullability', () => {
    const schema = readFileSync(join(import.meta.dirname, '..', '..', 'prisma', 'schema.prisma'), 'utf8');
    const columns = schemaColumns(schema);
    expect(Object.keys(columns).length).toBeGreaterThan(10);
    expect(columns.KnowledgeRevision).toMatchObject({ id: 'Int', note: 'String?', createdAt: 'DateTime' });
    expect(rowTypes()).toEqual(columns);
  });

  it('find a column the schema has and they do not', () => {
    const schema = readFileSync(join(import.meta.dirname, '..', '..', 'prisma', 'schema.prisma'), 'utf8');
    const added = schema.replace('model KnowledgePage {', 'model KnowledgePage {\n  language String @default("en")');
    expect(rowTypes()).not.toEqual(schemaColumns(added));
    expect(schemaColumns(added).KnowledgePage).toHaveProperty('language', 'String');
  });
});

describe.each(backends())('the migrated tables on $name', (backend) => {
  const store = storeFor(backend);

  it('are the row types, column for column', async () => {
    const { sql } = store();
    const tables =
      sql.provider === 'sqlite'
        ? `SELECT "name" FROM sqlite_master WHERE "type" = 'table' AND "name" NOT LIKE 'sqlite_%'`
        : `SELECT table_name AS "name" FROM information_schema.tables WHERE table_schema = current_schema()`;
    const columns =
      sql.provider === 'sqlite'
        ? `SELECT "name" FROM pragma_table_info($1)`
        : `SELECT column_name AS "name" FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`;
    const found: Record<string, string[]> = {};
    for (const { name } of await sql.all(tables)) {
      if (name === '_parley_migrations') continue;
      found[String(name)] = (await sql.all(columns, [String(name)])).map((row) => String(row.name)).sort();
    }
    expect(found).toEqual(Object.fromEntries(Object.entries(TABLES).map(([table, row]) => [table, Object.keys(row.shape).sort()])));
  });
});
