// Prisma CLI configuration: the WebAssembly schema engine through a driver adapter, so that
// `prisma migrate diff` works offline (see ../shared/docs/BUILD-ENVIRONMENT.md). The CLI and this
// adapter are development tools (`npm run db:migration`, test/store/schema-drift.test.ts): Parley
// applies its committed migrations itself (src/store/migrate.ts) and never loads Prisma at run time.
import { defineConfig } from 'prisma/config';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: process.env.PRISMA_SCHEMA ?? 'prisma/schema.prisma',
  // The CLI opens it even for a diff of two schemas (which writes nothing to it).
  async adapter() {
    return new PrismaBetterSQLite3({ url: process.env.PRISMA_CLI_DATABASE_URL ?? 'file:./data/prisma-cli.db' });
  },
});
