// The runtime lock: one bot process per SQLite file, taken and refused without waiting.
import { readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { StoreError } from '../../src/store/errors.ts';
import { acquireRuntimeLock, DatabaseInUseError } from '../../src/store/runtime-lock.ts';
import { tempDir } from '../helpers/harness.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function sqliteIn(dir: string, file = 'parley.db') {
  const target = parseDatabaseUrl(`file:${join(dir, file)}`);
  if (target.provider !== 'sqlite') throw new Error('expected a SQLite target');
  return target;
}

describe('runtime lock', () => {
  it('is held until released; meanwhile a second taker is refused at once with what to do', () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const target = sqliteIn(dir);
    const lock = acquireRuntimeLock(target);
    cleanups.push(() => lock.release());
    expect(lock.exclusive).toBe(true);
    expect(() => acquireRuntimeLock(target)).toThrow(DatabaseInUseError);
    expect(() => acquireRuntimeLock(target)).toThrow(
      `The database ${target.file} is in use by another Parley process. SQLite serves one bot process per database file: ` +
        'stop the other one (the parley CLI may run alongside it), or use PostgreSQL (DATABASE_URL=postgresql://...) to run several processes.',
    );
    // Only the lock file beside the database, no journal.
    expect(readdirSync(dir)).toEqual(['parley.db.lock']);
    lock.release();
    const again = acquireRuntimeLock(target);
    again.release();
  });

  it('follows a symlink to the database', () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'parley.db'), '');
    symlinkSync(join(dir, 'parley.db'), join(dir, 'alias.db'));
    const lock = acquireRuntimeLock(sqliteIn(dir));
    cleanups.push(() => lock.release());
    expect(() => acquireRuntimeLock(sqliteIn(dir, 'alias.db'))).toThrow(DatabaseInUseError);
  });

  it('is per database file', () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const a = acquireRuntimeLock(sqliteIn(dir, 'a.db'));
    const b = acquireRuntimeLock(sqliteIn(dir, 'b.db'));
    a.release();
    b.release();
  });

  it('is not needed on PostgreSQL (several processes) or for an in-memory database', () => {
    expect(acquireRuntimeLock(parseDatabaseUrl('postgresql://u@127.0.0.1:1/db')).exclusive).toBe(false);
    expect(acquireRuntimeLock(parseDatabaseUrl('file::memory:')).exclusive).toBe(true);
  });

  it('a folder it cannot create gives a database error, not "in use"', () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'not-a-folder'), '');
    const attempt = () => acquireRuntimeLock(sqliteIn(join(dir, 'not-a-folder')));
    expect(attempt).toThrow(StoreError);
    expect(attempt).not.toThrow(DatabaseInUseError);
    expect(attempt).toThrow(/^Database error \(SQLite file .*not-a-folder\/parley\.db\): /);
  });
});
