// The store's own SQL driver: statements prepared once per connection, transactions on one
// connection, every statement counted (PARLEY_COUNT_SQL). Statements are written with
// PostgreSQL's $n placeholders, each used once and in order (SQLite gets ?).
import type { DatabaseTarget } from '../../config/config.ts';

export type SqlValue = string | number | boolean | Date | null;
export type SqlRow = Record<string, unknown>;

export interface SqlRunner {
  /** Rows of a SELECT or of a write with RETURNING. */
  all(text: string, values?: readonly SqlValue[]): Promise<SqlRow[]>;
  /** A write; resolves to the number of rows it changed. */
  run(text: string, values?: readonly SqlValue[]): Promise<number>;
}

export interface SqlDriver extends SqlRunner {
  readonly provider: DatabaseTarget['provider'];
  /**
   * Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when
   * it throws. Statements of other flows never land inside it.
   */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /**
   * For writes whose loss in a crash of the database server only repeats work (see
   * src/agent/journal.ts): PostgreSQL commits them without waiting for their WAL to reach the disk
   * (synchronous_commit off). They are visible at once, and any later ordinary commit makes them
   * durable too, as the WAL is written in order. SQLite commits every write that way already
   * (synchronous = NORMAL): there it is the driver itself.
   */
  readonly relaxed: SqlRunner;
  close(): Promise<void>;
}
