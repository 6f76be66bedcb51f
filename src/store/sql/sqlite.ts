// SQLite through better-sqlite3: its own connection on the store's file (WAL is set by the
// migrator), statements prepared once and cached by text.
import Database from 'better-sqlite3';
import type { DatabaseTarget } from '../../config/config.ts';
import { StoreError } from '../errors.ts';
import { statementCounter } from '../statement-count.ts';
import type { SqlDriver, SqlRow, SqlRunner, SqlValue } from './driver.ts';
import { Gate } from './gate.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';

type SqliteTarget = Extract<DatabaseTarget, { provider: 'sqlite' }>;

/** The text Prisma wrote for a DateTime (older databases hold it), so all rows compare and sort alike. */
const toSqlite = (value: SqlValue): string | number | null =>
  value instanceof Date ? value.toISOString().replace('Z', '+00:00') : typeof value === 'boolean' ? (value ? 1 : 0) : value;

export function openSqlite(target: SqliteTarget): SqlDriver {
  let db: Database.Database;
  try {
    // `timeout` is SQLite's busy timeout: writers from other processes wait instead of failing.
    db = new Database(target.file, { timeout: 15_000 });
    // WAL (persistent, set by the migrator) + NORMAL: no fsync per commit, still crash-safe for
    // the database file; the last commits may be lost on power failure.
    db.pragma('synchronous = NORMAL');
  } catch (error) {
    throw StoreError.from(error, target);
  }
  const cache = new Map<string, Database.Statement>();
  const prepare = (text: string): Database.Statement => {
    let statement = cache.get(text);
    if (!statement) {
      // SQLite's `?` are positional: a $n out of order (or used twice) would bind the wrong value.
      const numbers = Array.from(text.matchAll(/\$(\d+)/g), (match) => Number(match[1]));
      if (numbers.some((n, i) => n !== i + 1)) throw new Error(`placeholders must appear in order ($1, $2, …) on SQLite: ${text}`);
      statement = db.prepare(text.replace(/\$\d+/g, '?'));
      cache.set(text, statement);
    }
    return statement;
  };
  const counter = statementCounter();
  const counted = (text: string) => {
    if (counter) {
      counter.total++;
      counter.log?.push(text);
    }
  };
  const checkpoints = new WalCheckpointer(db, target.file);
  const execute = <T>(text: string, work: () => T): T => {
    counted(text);
    checkpoints.used();
    try {
      return work();
    } catch (error) {
      throw StoreError.from(error, target);
    }
  };
  const direct: SqlRunner = {
    all: async (text, values = []) => execute(text, () => prepare(text).all(...values.map(toSqlite)) as SqlRow[]),
    run: async (text, values = []) => execute(text, () => prepare(text).run(...values.map(toSqlite)).changes),
  };
  // A transaction's statements run synchronously on this one connection; between them only
  // microtasks run, and the gate holds every other statement of this store until it ends.
  const gate = new Gate();
  const outside: SqlRunner = {
    all: (text, values) => gate.outside(() => direct.all(text, values)),
    run: (text, values) => gate.outside(() => direct.run(text, values)),
  };
  return {
    provider: 'sqlite',
    ...outside,
    relaxed: outside,
    transaction: (fn) =>
      gate.exclusive(async () => {
        execute('BEGIN IMMEDIATE', () => prepare('BEGIN IMMEDIATE').run());
        try {
          const result = await fn(direct);
          execute('COMMIT', () => prepare('COMMIT').run());
          return result;
        } catch (error) {
          if (db.inTransaction) execute('ROLLBACK', () => prepare('ROLLBACK').run());
          throw error;
        }
      }),
    async close() {
      await gate.exclusive(async () => {
        await checkpoints.stop();
        db.close();
      });
    },
  };
}
