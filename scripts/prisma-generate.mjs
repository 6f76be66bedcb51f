// Generates both Prisma clients (SQLite and PostgreSQL) offline. Runs on `npm install`.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { root, sqliteSchemaPath, writePostgresSchema } from './prisma-schemas.mjs';

const prismaBin = join(root, 'node_modules', '.bin', 'prisma');
mkdirSync(join(root, 'data'), { recursive: true });
const postgresSchema = writePostgresSchema();
for (const schema of [sqliteSchemaPath, postgresSchema]) {
  execFileSync(prismaBin, ['generate', '--schema', schema], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
console.log('parley: generated Prisma clients (sqlite, postgresql)');
