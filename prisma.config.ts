// Prisma CLI configuration: the WebAssembly schema engine through a driver adapter, so that
// `prisma generate` / `prisma migrate diff` work offline (see ../shared/docs/BUILD-ENVIRONMENT.md).
// Parley applies its committed migrations itself (src/store/migrate.ts); this file is for the CLI.
import { defineConfig } from 'prisma/config';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: process.env.PRISMA_SCHEMA ?? 'prisma/schema.prisma',
  async adapter() {
    return new PrismaBetterSQLite3({ url: process.env.PRISMA_CLI_DATABASE_URL ?? 'file:./data/prisma-cli.db' });
  },
});
