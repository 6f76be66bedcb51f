import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { isUniqueViolation } from '../database.ts';
import { dateColumn, intColumn, optionalText } from '../sql/columns.ts';
import type { SqlDriver, SqlRunner } from '../sql/driver.ts';
import type { SessionRecord, SessionSpec } from '../types.ts';

const COLUMNS = `"id", "key", "channel", "chatId", "chatType", "threadId", "userId", "epoch", "createdAt", "updatedAt"`;

const rowSchema = z.object({
  id: z.string(),
  key: z.string(),
  channel: z.string(),
  chatId: z.string(),
  chatType: z.enum(['direct', 'group']),
  threadId: optionalText,
  userId: optionalText,
  epoch: intColumn,
  createdAt: dateColumn,
  updatedAt: dateColumn,
});

const toRecord = (raw: unknown): SessionRecord => rowSchema.parse(raw);

async function getSession(db: SqlRunner, id: string): Promise<SessionRecord | undefined> {
  const rows = await db.all(`SELECT ${COLUMNS} FROM "Session" WHERE "id" = $1`, [id]);
  return rows[0] ? toRecord(rows[0]) : undefined;
}

export function sessionsRepo(sql: SqlDriver) {
  const byKey = async (key: string) => {
    const rows = await sql.all(`SELECT ${COLUMNS} FROM "Session" WHERE "key" = $1`, [key]);
    return rows[0] ? toRecord(rows[0]) : undefined;
  };
  return {
    /** The session for `spec.key`, created on first use. */
    async ensure(spec: SessionSpec): Promise<SessionRecord> {
      // Look first (the common case), create on a miss; a concurrent creator wins the unique key.
      const existing = await byKey(spec.key);
      if (existing) return existing;
      try {
        const now = new Date();
        const rows = await sql.all(
          `INSERT INTO "Session" ("id", "key", "channel", "chatId", "chatType", "threadId", "userId", "createdAt", "updatedAt")
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
          [randomUUID(), spec.key, spec.channel, spec.chatId, spec.chatType, spec.threadId ?? null, spec.userId ?? null, now, now],
        );
        return toRecord(rows[0]);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const winner = await byKey(spec.key);
        if (!winner) throw error;
        return winner;
      }
    },

    get: (id: string) => getSession(sql, id),

    getByKey: byKey,

    async list(options: { limit?: number; channel?: string } = {}): Promise<SessionRecord[]> {
      const rows = options.channel
        ? await sql.all(`SELECT ${COLUMNS} FROM "Session" WHERE "channel" = $1 ORDER BY "updatedAt" DESC LIMIT $2`, [
            options.channel,
            options.limit ?? 100,
          ])
        : await sql.all(`SELECT ${COLUMNS} FROM "Session" ORDER BY "updatedAt" DESC LIMIT $1`, [options.limit ?? 100]);
      return rows.map(toRecord);
    },

    /** Start a fresh conversation: later history reads only see the new epoch. */
    async reset(id: string): Promise<number> {
      const rows = await sql.all(`UPDATE "Session" SET "epoch" = "epoch" + 1, "updatedAt" = $1 WHERE "id" = $2 RETURNING "epoch"`, [
        new Date(),
        id,
      ]);
      if (!rows[0]) throw new Error(`Session ${id} not found`);
      return intColumn.parse(rows[0].epoch);
    },

    /**
     * Take (or extend) the session's lease: one conditional update, so exactly one process wins
     * even when several try at once.
     */
    async acquireLease(id: string, owner: string, ttlMs: number): Promise<boolean> {
      const now = new Date();
      const changed = await sql.run(
        `UPDATE "Session" SET "leaseOwner" = $1, "leaseUntil" = $2, "updatedAt" = $3
          WHERE "id" = $4 AND ("leaseOwner" IS NULL OR "leaseOwner" = $5 OR "leaseUntil" < $6)`,
        [owner, new Date(now.getTime() + ttlMs), now, id, owner, now],
      );
      return changed === 1;
    },

    async renewLease(id: string, owner: string, ttlMs: number): Promise<boolean> {
      const now = new Date();
      const changed = await sql.run(`UPDATE "Session" SET "leaseUntil" = $1, "updatedAt" = $2 WHERE "id" = $3 AND "leaseOwner" = $4`, [
        new Date(now.getTime() + ttlMs),
        now,
        id,
        owner,
      ]);
      return changed === 1;
    },

    /** Extends every lease `owner` holds (the process heartbeat: one statement for all its sessions). */
    renewLeasesOf: (owner: string, until: Date): Promise<number> =>
      sql.run(`UPDATE "Session" SET "leaseUntil" = $1, "updatedAt" = $2 WHERE "leaseOwner" = $3`, [until, new Date(), owner]),

    async releaseLease(id: string, owner: string): Promise<void> {
      await sql.run(
        `UPDATE "Session" SET "leaseOwner" = NULL, "leaseUntil" = NULL, "updatedAt" = $1 WHERE "id" = $2 AND "leaseOwner" = $3`,
        [new Date(), id, owner],
      );
    },

    /** Everyone holding a session lease right now (expired or not), once each. */
    async leaseOwners(): Promise<string[]> {
      const rows = await sql.all(`SELECT DISTINCT "leaseOwner" FROM "Session" WHERE "leaseOwner" IS NOT NULL`);
      return rows.map((row) => z.string().parse(row.leaseOwner));
    },

    /** Frees every lease held by these owners (processes known to be gone); returns how many. */
    async releaseLeasesOf(owners: readonly string[]): Promise<number> {
      if (owners.length === 0) return 0;
      const list = owners.map((_, i) => `$${i + 2}`).join(', ');
      return sql.run(`UPDATE "Session" SET "leaseOwner" = NULL, "leaseUntil" = NULL, "updatedAt" = $1 WHERE "leaseOwner" IN (${list})`, [
        new Date(),
        ...owners,
      ]);
    },
  };
}
