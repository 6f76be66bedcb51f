// The live Parley processes (one row each, kept fresh by the process heartbeat), on the table of
// migration 0005. Raw statements: one per call, counted like every other statement.
import { z } from 'zod';
import type { DatabaseTarget } from '../../config/config.ts';
import type { Db } from '../database.ts';

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
  pid: z.coerce.number(),
  startedAt: z.coerce.date(),
  heartbeatAt: z.coerce.date(),
  channels: z.string(),
});

const channelsSchema = z.array(z.string());

function toRecord(raw: unknown): ProcessRecord {
  const row = rowSchema.parse(raw);
  const channels = channelsSchema.safeParse(JSON.parse(row.channels));
  return { ...row, channels: channels.success ? channels.data : [] };
}

export function processesRepo(db: Db, provider: DatabaseTarget['provider'] = 'sqlite') {
  // Statements are written with PostgreSQL's $n placeholders (each used once, in order); SQLite wants ?.
  const sql = (text: string) => (provider === 'sqlite' ? text.replace(/\$\d+/g, '?') : text);
  return {
    /** Insert or refresh this process's row (one statement). */
    async beat(record: Omit<ProcessRecord, 'heartbeatAt'>, now: Date): Promise<void> {
      await db.$executeRawUnsafe(
        sql(`INSERT INTO "ParleyProcess" ("owner", "host", "pid", "startedAt", "heartbeatAt", "channels") VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT ("owner") DO UPDATE SET "heartbeatAt" = excluded."heartbeatAt", "channels" = excluded."channels"`),
        record.owner,
        record.host,
        record.pid,
        record.startedAt,
        now,
        JSON.stringify(record.channels),
      );
    },

    /** Deletes the rows of processes whose last beat is older than `before`; returns their owners. */
    async reap(before: Date): Promise<string[]> {
      const rows = await db.$queryRawUnsafe<{ owner: string }[]>(
        sql(`DELETE FROM "ParleyProcess" WHERE "heartbeatAt" < $1 RETURNING "owner"`),
        before,
      );
      return rows.map((row) => z.string().parse(row.owner));
    },

    async remove(owner: string): Promise<void> {
      await db.$executeRawUnsafe(sql(`DELETE FROM "ParleyProcess" WHERE "owner" = $1`), owner);
    },

    /** PostgreSQL only: one NOTIFY (wake-ups between processes). */
    async notify(channel: string, payload: string): Promise<void> {
      await db.$executeRawUnsafe('SELECT pg_notify($1, $2)', channel, payload);
    },

    async list(): Promise<ProcessRecord[]> {
      const rows = await db.$queryRawUnsafe<unknown[]>(
        `SELECT "owner", "host", "pid", "startedAt", "heartbeatAt", "channels" FROM "ParleyProcess" ORDER BY "startedAt"`,
      );
      return rows.map(toRecord);
    },
  };
}

export type ProcessesRepo = ReturnType<typeof processesRepo>;
