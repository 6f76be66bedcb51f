// SQLite's WAL checkpoints move off the thread that answers messages once the store has been busy:
// a worker thread with its own connection copies the WAL into the database file while the store's
// connection only appends to the WAL. Checked from outside the connection: the database file grows
// (only a checkpoint writes it) though the store wrote too little for its own, and stopping puts
// SQLite's own checkpoints back.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { WalCheckpointer } from '../../src/store/sql/wal-checkpointer.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';

const open: Database.Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function walDatabase() {
  const file = join(tempDir('parley-wal-'), 'store.db');
  const db = new Database(file);
  open.push(db);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE row (id INTEGER PRIMARY KEY, body TEXT)');
  return { db, file };
}

const autocheckpoint = (db: Database.Database) => db.pragma('wal_autocheckpoint', { simple: true });

describe('WAL checkpoints on a worker thread', () => {
  it('starts after the store has been busy, then copies the WAL into the database while the store only appends', async () => {
    const { db, file } = walDatabase();
    const checkpoints = new WalCheckpointer(db, file);
    const insert = db.prepare('INSERT INTO row (body) VALUES (?)');
    for (let i = 0; i < 499; i++) checkpoints.used();
    expect(autocheckpoint(db)).toBe(1_000);
    checkpoints.used();
    // The store's connection leaves checkpoints to the worker (its own only past 10,000 pages).
    await waitFor(() => autocheckpoint(db) === 10_000, 'the worker to be ready');

    // About 600 pages: under SQLite's default threshold (1,000), so the store's connection copies
    // none of them into the database file; only the worker can (during the inserts or after).
    const before = statSync(file).size;
    for (let i = 0; i < 600; i++) {
      checkpoints.used(); // as the store does with each statement
      insert.run('x'.repeat(3_000));
    }
    await waitFor(() => statSync(file).size > before + 2_000_000, 'the database file to grow');

    await checkpoints.stop();
    expect(autocheckpoint(db)).toBe(1_000);
    expect(db.prepare('SELECT COUNT(*) AS n FROM row').get()).toEqual({ n: 600 });
  });

  it("once the store is quiet, starts the WAL over itself: the store's next write appends instead of syncing a new WAL header", async () => {
    const { db, file } = walDatabase();
    const checkpoints = new WalCheckpointer(db, file);
    const insert = db.prepare('INSERT INTO row (body) VALUES (?)');
    const write = () => {
      checkpoints.used();
      insert.run('x');
    };
    for (let i = 0; i < 500; i++) checkpoints.used();
    await waitFor(() => autocheckpoint(db) === 10_000, 'the worker to be ready');
    // The WAL header's salts change whenever a writer starts the WAL over from its first frame
    // (and SQLite then syncs the header before that write commits).
    const salts = () => readFileSync(`${file}-wal`).subarray(16, 24).toString('hex');
    for (let i = 0; i < 20; i++) write();
    const busy = salts();
    await waitFor(() => salts() !== busy, 'the worker to start the WAL over once the store is quiet');
    const restarted = salts();
    for (let i = 0; i < 5; i++) write();
    expect(salts()).toBe(restarted);
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    await checkpoints.stop();
    expect(db.prepare('SELECT COUNT(*) AS n FROM row').get()).toEqual({ n: 25 });
  });

  it('stays off for an in-memory database and after stop', async () => {
    const memory = new Database(':memory:');
    open.push(memory);
    const idle = new WalCheckpointer(memory, ':memory:');
    for (let i = 0; i < 1_000; i++) idle.used();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(autocheckpoint(memory)).toBe(1_000);

    const { db, file } = walDatabase();
    const stopped = new WalCheckpointer(db, file);
    await stopped.stop();
    for (let i = 0; i < 1_000; i++) stopped.used();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(autocheckpoint(db)).toBe(1_000);
  });

  it('a process with nothing else to do still gets through the store close (the worker is waited for)', () => {
    // A script like the CLI: busy enough for the worker, then close, then its last line. Before,
    // the unref'd worker let the process end inside close(), which never settled.
    const script = `
      const { parseDatabaseUrl } = await import(${JSON.stringify(join(import.meta.dirname, '../../src/config/config.ts'))});
      const { openStore } = await import(${JSON.stringify(join(import.meta.dirname, '../../src/store/store.ts'))});
      const store = await openStore(parseDatabaseUrl(${JSON.stringify(`file:${join(tempDir('parley-wal-'), 'store.db')}`)}));
      for (let i = 0; i < 2000; i++) await store.sql.all('SELECT 1');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await store.close();
      console.log('closed');`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(out.trim()).toBe('closed');
  });
});
