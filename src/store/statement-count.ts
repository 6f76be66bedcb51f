// Opt-in count of the SQL statements the store sends, through its own SQL driver (every
// statement, BEGIN/COMMIT/ROLLBACK included) and through the Prisma driver adapter
// (PARLEY_COUNT_SQL=1): the hot-path benchmark prints statements per turn and a test pins them.
// Off (the default) the adapter is used as is, so counting costs nothing.
// Prisma: every queryRaw/executeRaw on the connection or inside a transaction (Prisma sends
// COMMIT/ROLLBACK that way) and one BEGIN per transaction started.

export interface StatementCounter {
  total: number;
  /** The statements' SQL, newest last, when `PARLEY_COUNT_SQL=log` (for finding what to cut). */
  readonly log: string[] | undefined;
}

// On globalThis so that a process-level probe (bench/probe.mjs) can read it without importing src/.
const KEY = Symbol.for('parley.sqlStatements');
type WithCounter = { [KEY]?: StatementCounter };

/** The process's counter, or undefined when counting is off. */
export function statementCounter(env: NodeJS.ProcessEnv = process.env): StatementCounter | undefined {
  return (globalThis as WithCounter)[KEY] ?? enabledCounter(env);
}

function enabledCounter(env: NodeJS.ProcessEnv): StatementCounter | undefined {
  const mode = env.PARLEY_COUNT_SQL;
  if (!mode || mode === '0' || mode === 'false') return undefined;
  const holder = globalThis as WithCounter;
  holder[KEY] ??= { total: 0, log: mode === 'log' ? [] : undefined };
  return holder[KEY];
}

type Query = { sql: string };
type Queryable = { queryRaw(q: Query): Promise<unknown>; executeRaw(q: Query): Promise<unknown> };

function countQueries<T extends object>(
  target: T,
  counter: StatementCounter,
  extra: (prop: string | symbol, value: unknown) => unknown = () => undefined,
): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      if (prop === 'queryRaw' || prop === 'executeRaw') {
        return (query: Query) => {
          counter.total++;
          counter.log?.push(query.sql);
          return (value as Queryable['queryRaw']).call(obj, query);
        };
      }
      return extra(prop, value) ?? (value as (...args: unknown[]) => unknown).bind(obj);
    },
  });
}

/** Wraps a Prisma driver adapter factory so its statements are counted, when counting is on. */
export function countingAdapter<F extends { connect(): Promise<object> }>(factory: F, env: NodeJS.ProcessEnv = process.env): F {
  const counter = enabledCounter(env);
  if (!counter) return factory;
  const wrapAdapter = (adapter: object) =>
    countQueries(adapter, counter, (prop, value) => {
      if (prop !== 'startTransaction') return undefined;
      return async (...args: unknown[]) => {
        const tx = (await (value as (...a: unknown[]) => Promise<object>).apply(adapter, args)) as object;
        counter.total++;
        counter.log?.push('BEGIN');
        return countQueries(tx, counter);
      };
    });
  return countQueries(factory, counter, (prop, value) => {
    if (prop !== 'connect') return undefined;
    return async () => wrapAdapter(await (value as () => Promise<object>).call(factory));
  });
}
