// PostgreSQL through a pg Pool: named prepared statements (parsed once per connection), and a
// dedicated pooled client per transaction.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { DatabaseTarget } from '../../config/config.ts';
import { StoreError } from '../errors.ts';
import { statementCounter } from '../statement-count.ts';
import type { SqlDriver, SqlRow, SqlRunner, SqlValue } from './driver.ts';

type PostgresTarget = Extract<DatabaseTarget, { provider: 'postgresql' }>;

// Prisma's DateTime columns are `timestamp(3)` without zone holding UTC: read them as UTC, and
// write ISO text (its zone is ignored by the cast) instead of pg's local-time rendering.
const TIMESTAMP = 1114;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP && format !== 'binary'
      ? (text: string) => new Date(`${text.replace(' ', 'T')}Z`)
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};
const toPostgres = (value: SqlValue) => (value instanceof Date ? value.toISOString() : value);

const names = new Map<string, string>();
const nameOf = (text: string): string => {
  let name = names.get(text);
  if (!name) {
    name = `p_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
};

const NO_COMMIT_WAIT = '-c synchronous_commit=off';

/**
 * The connection settings of the relaxed writes' pool: `synchronous_commit=off` added to the URL's
 * startup options (an `options` parameter in the URL replaces the pool's own).
 */
function withoutCommitWait(url: string): pg.PoolConfig {
  try {
    const parsed = new URL(url);
    parsed.searchParams.set('options', [parsed.searchParams.get('options'), NO_COMMIT_WAIT].filter(Boolean).join(' '));
    return { connectionString: parsed.toString() };
  } catch {
    // Not a WHATWG URL (a user and no host: `postgresql://me@/db?host=/run/postgresql`), which pg
    // still reads. Its own `options`, if any, then win: those writes are ordinary commits.
    return { connectionString: url, options: NO_COMMIT_WAIT };
  }
}

export function openPostgres(target: PostgresTarget): SqlDriver {
  const pool = new pg.Pool({ connectionString: target.url, max: 10, types });
  // Few connections: these writes come one per tool round of a turn.
  const relaxedPool = new pg.Pool({ ...withoutCommitWait(target.url), max: 4, types });
  // An idle client that loses its server is dropped by the pool; the next query reports the outage.
  pool.on('error', () => {});
  relaxedPool.on('error', () => {});

  const counter = statementCounter();
  const query = async (on: pg.Pool | pg.PoolClient, text: string, values: readonly SqlValue[], prepared = true) => {
    if (counter) {
      counter.total++;
      counter.log?.push(text);
    }
    try {
      return await on.query(prepared ? { name: nameOf(text), text, values: values.map(toPostgres) } : text);
    } catch (error) {
      throw StoreError.from(error, target);
    }
  };
  const runner = (on: pg.Pool | pg.PoolClient): SqlRunner => ({
    all: async (text, values = []) => (await query(on, text, values)).rows as SqlRow[],
    run: async (text, values = []) => (await query(on, text, values)).rowCount ?? 0,
  });

  return {
    provider: 'postgresql',
    ...runner(pool),
    relaxed: runner(relaxedPool),
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw StoreError.from(error, target);
      }
      let broken: unknown;
      try {
        await query(client, 'BEGIN', [], false);
        const result = await fn(runner(client));
        await query(client, 'COMMIT', [], false);
        return result;
      } catch (error) {
        try {
          await query(client, 'ROLLBACK', [], false);
        } catch (rollbackError) {
          broken = rollbackError;
        }
        throw error;
      } finally {
        // A client whose ROLLBACK failed is in an unknown state: destroyed, not reused.
        client.release(broken instanceof Error ? broken : undefined);
      }
    },
    async close() {
      await Promise.all([pool.end(), relaxedPool.end()]);
    },
  };
}
