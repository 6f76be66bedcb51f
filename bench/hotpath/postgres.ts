// A throw-away PostgreSQL database for the benchmark, on PARLEY_TEST_POSTGRES_URL or the local
// server; undefined when neither answers.
import pg from 'pg';

const LOCAL = 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface TempDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function tempPostgres(): Promise<TempDatabase | undefined> {
  const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL || LOCAL;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2_000 });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  const name = `parley_bench_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
