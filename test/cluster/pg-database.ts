// A fresh PostgreSQL database per test file (dropped afterwards), on the server named by
// PARLEY_TEST_POSTGRES_URL (.ci/run always sets it).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;

export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
  url = adminUrl,
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Creates a database; returns its URL and a function that drops it. */
export async function freshDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const parsed = new URL(adminUrl!);
  parsed.pathname = `/${name}`;
  return { url: parsed.toString(), drop: async () => void (await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
}

/** Who holds a channel's receiver lease (the pid from the owner `host:pid:random`), with its token and stored state. */
export async function receiverHolder(
  receiver: string,
  databaseUrl: string,
): Promise<{ pid: number; token: number; state: string | null } | undefined> {
  const rows = await adminQuery<{ owner: string | null; token: number; state: string | null }>(
    `SELECT "owner", "token", "state" FROM "ReceiverLease" WHERE "receiver" = $1`,
    [receiver],
    databaseUrl,
  );
  const row = rows[0];
  return row?.owner ? { pid: Number(row.owner.split(':').at(-2)), token: row.token, state: row.state } : undefined;
}
