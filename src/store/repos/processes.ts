// The live Parley processes (one row each, kept fresh by the process heartbeat), on the table of
// migration 0005. On the store's own SQL driver (one statement per call), so the heartbeat every
// process runs from its start does not load Prisma.
import { z } from 'zod';
import { dateColumn, intColumn } from '../sql/columns.ts';
import type { SqlDriver } from '../sql/driver.ts';

export interface ProcessRecord {
  owner: string;
  host: string;
  pid: number;
  startedAt: Date;
  heartbeatAt: Date;
  channels: string[];
}

const rowSchema = z.object({
  owner: z.string(),
  host: z.string(),
  pid: intColumn,
  startedAt: dateColumn,
  heartbeatAt: dateColumn,
  channels: z.string(),
});

const channelsSchema = z.array(z.string());

function toRecord(raw: unknown): ProcessRecord {
  const row = rowSchema.parse(raw);
  const channels = channelsSchema.safeParse(JSON.parse(row.channels));
  return { ...row, channels: channels.success ? channels.data : [] };
}

export function processesRepo(sql: SqlDriver) {
  return {
    /** Insert or refresh this process's row (one statement). */
    async beat(record: Omit<ProcessRecord, 'heartbeatAt'>, now: Date): Promise<void> {
      await sql.run(
        `INSERT INTO "ParleyProcess" ("owner", "host", "pid", "startedAt", "heartbeatAt", "channels") VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT ("owner") DO UPDATE SET "heartbeatAt" = excluded."heartbeatAt", "channels" = excluded."channels"`,
        [record.owner, record.host, record.pid, record.startedAt, now, JSON.stringify(record.channels)],
      );
    },

    /** Deletes the rows of processes whose last beat is older than `before`; returns their owners. */
    async reap(before: Date): Promise<string[]> {
      const rows = await sql.all(`DELETE FROM "ParleyProcess" WHERE "heartbeatAt" < $1 RETURNING "owner"`, [before]);
      return rows.map((row) => z.string().parse(row.owner));
    },

    async remove(owner: string): Promise<void> {
      await sql.run(`DELETE FROM "ParleyProcess" WHERE "owner" = $1`, [owner]);
    },

    /**
     * SQLite only: a number that changes when another connection (the `parley` CLI) commits, and
     * not for this connection's own writes (PRAGMA data_version).
     */
    async dataVersion(): Promise<number> {
      const [row] = await sql.all('PRAGMA data_version');
      return z.number().parse(row?.data_version);
    },

    /** PostgreSQL only: one NOTIFY (wake-ups between processes). */
    async notify(channel: string, payload: string): Promise<void> {
      await sql.all('SELECT pg_notify($1, $2)', [channel, payload]);
    },

    async list(): Promise<ProcessRecord[]> {
      const rows = await sql.all(
        `SELECT "owner", "host", "pid", "startedAt", "heartbeatAt", "channels" FROM "ParleyProcess" ORDER BY "startedAt"`,
      );
      return rows.map(toRecord);
    },
  };
}

export type ProcessesRepo = ReturnType<typeof processesRepo>;
