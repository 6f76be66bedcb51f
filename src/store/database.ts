// Opens the Prisma client for the configured database through its driver adapter, on first use:
// the per-message repositories run on the store's own SQL driver, so a process that never
// touches the others (approvals, grants, audit, knowledge) never loads Prisma.
// Both generated clients expose the same model API; the SQLite client's type stands for both.
import type { DatabaseTarget } from '../config/config.ts';
import type { PrismaClient as SqliteClient } from './generated/sqlite/client.ts';
import { StoreError } from './errors.ts';
import { countingAdapter } from './statement-count.ts';

export type Db = SqliteClient;
export type Tx = Omit<Db, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

async function openDatabase(target: DatabaseTarget): Promise<Db> {
  try {
    if (target.provider === 'sqlite') {
      const [{ PrismaBetterSQLite3 }, { PrismaClient }] = await Promise.all([
        import('@prisma/adapter-better-sqlite3'),
        import('./generated/sqlite/client.ts'),
      ]);
      // `timeout` is SQLite's busy timeout: writers from other processes wait instead of failing.
      const adapter = countingAdapter(new PrismaBetterSQLite3({ url: target.file, timeout: 15_000 }));
      const db = new PrismaClient({ adapter });
      await db.$connect();
      await db.$queryRawUnsafe('PRAGMA synchronous = NORMAL');
      return db;
    }
    const [{ PrismaPg }, { PrismaClient }] = await Promise.all([import('@prisma/adapter-pg'), import('./generated/postgresql/client.ts')]);
    const adapter = countingAdapter(new PrismaPg({ connectionString: target.url, max: 10 }));
    const db = new PrismaClient({ adapter }) as unknown as Db;
    await db.$connect();
    return db;
  } catch (error) {
    throw StoreError.from(error, target);
  }
}

type Callable = (...args: unknown[]) => unknown;

/**
 * A stand-in for the Prisma client that opens the real one on its first call. Repositories only
 * call `db.$method(...)` and `db.model.method(...)` and await the result, which is all it forwards.
 */
export function lazyDatabase(target: DatabaseTarget): { db: Db; close(): Promise<void> } {
  let opening: Promise<Db> | undefined;
  const call = async (owner: string, method: string | undefined, args: unknown[]) => {
    opening ??= openDatabase(target);
    const real = (await opening) as unknown as Record<string, Record<string, Callable> & Callable>;
    const holder = real[owner]!;
    return method === undefined ? holder.apply(real, args) : holder[method]!.apply(holder, args);
  };
  const delegate = (model: string) =>
    new Proxy({}, { get: (_, method) => (typeof method === 'string' ? (...args: unknown[]) => call(model, method, args) : undefined) });
  const db = new Proxy(
    {},
    {
      get(_, prop) {
        if (typeof prop !== 'string' || prop === 'then') return undefined;
        return prop.startsWith('$') ? (...args: unknown[]) => call(prop, undefined, args) : delegate(prop);
      },
    },
  ) as Db;
  return {
    db,
    async close() {
      if (!opening) return;
      const real = await opening.catch(() => undefined);
      await real?.$disconnect();
    },
  };
}

const UNIQUE_VIOLATIONS = new Set(['P2002', '23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** A unique constraint violation, from Prisma or from the store's SQL driver (a StoreError's cause). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  if (code !== undefined && UNIQUE_VIOLATIONS.has(code)) return true;
  return error instanceof Error && error.cause !== undefined && error.cause !== error && isUniqueViolation(error.cause);
}
