// The store on each backend, for suites that must pass on both: a temporary SQLite file, and a
// fresh PostgreSQL database (dropped afterwards) when PARLEY_TEST_POSTGRES_URL names a server.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { Inbound } from '../../src/core/types.ts';
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

/** The suite's store on `backend`: opened before its tests, closed and its database removed after. */
export function storeFor(backend: Backend): () => Store {
  let store: Store | undefined;
  beforeAll(async () => {
    store = await (await backend.create())();
  });
  afterAll(async () => {
    await store?.close();
    await backend.destroy();
  });
  return () => {
    if (!store) throw new Error('the store is opened in beforeAll');
    return store;
  };
}

/** A direct message from Alice in chat `c` of the `test` channel. */
export const testInbound = (eventId: string, text: string): Inbound => ({
  channel: 'test',
  chatId: 'c',
  chatType: 'direct',
  messageId: `m-${eventId}`,
  eventId,
  sender: { id: 'u1', displayName: 'Alice', isBot: false },
  text,
  attachments: [],
  mentionsBot: false,
  repliesToBot: false,
  receivedAt: new Date('2026-11-23T10:00:00Z'),
});
