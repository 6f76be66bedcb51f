// The store on each backend, for suites that must pass on both: a temporary SQLite file, and a
// fresh PostgreSQL database (dropped afterwards) when PARLEY_TEST_POSTGRES_URL names a server.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/harness.ts';

export interface Backend {
  name: 'sqlite' | 'postgresql';
  /** Creates the empty database; returns a function that opens a store on it. */
  create(): Promise<() => Promise<Store>>;
  destroy(): Promise<void>;
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function sqlite(): Backend {
  let dir = '';
  return {
    name: 'sqlite',
    async create() {
      dir = tempDir('parley-backend-');
      const target = parseDatabaseUrl(`file:${join(dir, 'parley.db')}`);
      return () => openStore(target);
    },
    async destroy() {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgres(adminUrl: string): Backend {
  const database = `parley_test_${randomBytes(4).toString('hex')}`;
  return {
    name: 'postgresql',
    async create() {
      await admin(adminUrl, `CREATE DATABASE ${database}`);
      const parsed = new URL(adminUrl);
      parsed.pathname = `/${database}`;
      const target = parseDatabaseUrl(parsed.toString());
      return () => openStore(target);
    },
    destroy: () => admin(adminUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`),
  };
}

export function backends(): Backend[] {
  const url = process.env.PARLEY_TEST_POSTGRES_URL;
  return url ? [sqlite(), postgres(url)] : [sqlite()];
}
