// Receiver leases (migration 0005): which process runs a channel's one receiver (Telegram long
// polling, the Discord gateway, the Feishu long connection), with a fencing token that grows on
// every change of holder. One statement per call, on the store's SQL driver (counted).
import { z } from 'zod';
import type { SqlDriver } from '../sql/driver.ts';
import { dateColumn, intColumn } from '../sql/columns.ts';

export interface ReceiverLeaseRecord {
  receiver: string;
  owner?: string;
  token: number;
  leaseUntil?: Date;
  updatedAt: Date;
}

const rowSchema = z.object({
  receiver: z.string(),
  owner: z.string().nullable(),
  token: intColumn,
  leaseUntil: dateColumn.nullable(),
  updatedAt: dateColumn,
});

const heldSchema = z.object({ owner: z.string().nullable(), token: intColumn });

export interface ClaimInput {
  receiver: string;
  owner: string;
  now: Date;
  leaseUntil: Date;
  /** Take it whoever holds it (a single process on SQLite: any holder is a previous run). */
  force?: boolean;
  /** The holder's resumable state to keep with the lease; undefined keeps the stored one. */
  state?: string;
}

const stateSchema = z.object({ state: z.string().nullable() });

export function receiversRepo(sql: SqlDriver) {
  return {
    /**
     * Takes or keeps the lease in one statement: granted when the receiver is free, its lease ran
     * out, its holder no longer has a process row (reaped or stopped), or this owner holds it.
     * Returns the fencing token when held, undefined when another process keeps it. The token
     * grows by one whenever the holder changes.
     */
    async claim(input: ClaimInput): Promise<number | undefined> {
      const rows = await sql.all(
        `INSERT INTO "ReceiverLease" ("receiver", "owner", "token", "leaseUntil", "updatedAt", "state") VALUES ($1, $2, 1, $3, $4, $5)
         ON CONFLICT ("receiver") DO UPDATE SET
           "state" = CASE WHEN "ReceiverLease"."owner" = excluded."owner" THEN COALESCE(excluded."state", "ReceiverLease"."state") ELSE "ReceiverLease"."state" END,
           "token" = CASE WHEN "ReceiverLease"."owner" = excluded."owner" THEN "ReceiverLease"."token" ELSE "ReceiverLease"."token" + 1 END,
           "owner" = excluded."owner", "leaseUntil" = excluded."leaseUntil", "updatedAt" = excluded."updatedAt"
         WHERE $6 OR "ReceiverLease"."owner" IS NULL OR "ReceiverLease"."owner" = excluded."owner"
           OR "ReceiverLease"."leaseUntil" IS NULL OR "ReceiverLease"."leaseUntil" < $7
           OR NOT EXISTS (SELECT 1 FROM "ParleyProcess" p WHERE p."owner" = "ReceiverLease"."owner")
         RETURNING "owner", "token"`,
        // In order of appearance: the SQLite driver binds placeholders positionally.
        [input.receiver, input.owner, input.leaseUntil, input.now, input.state ?? null, input.force === true, input.now],
      );
      const row = rows[0];
      if (!row) return undefined;
      const held = heldSchema.parse(row);
      return held.owner === input.owner ? held.token : undefined;
    },

    /** The resumable state the last holder left (read once by a process taking the lease over). */
    async state(receiver: string): Promise<string | undefined> {
      const rows = await sql.all(`SELECT "state" FROM "ReceiverLease" WHERE "receiver" = $1`, [receiver]);
      return rows[0] ? (stateSchema.parse(rows[0]).state ?? undefined) : undefined;
    },

    /**
     * Gives the lease up (the token stays; the next holder gets token + 1). The state goes with it:
     * a receiver stopped cleanly has ended its session (discord.js closes the gateway with 1000).
     */
    async release(receiver: string, owner: string): Promise<void> {
      await sql.run(
        `UPDATE "ReceiverLease" SET "owner" = NULL, "leaseUntil" = NULL, "state" = NULL, "updatedAt" = $1 WHERE "receiver" = $2 AND "owner" = $3`,
        [new Date(), receiver, owner],
      );
    },

    async list(): Promise<ReceiverLeaseRecord[]> {
      const rows = await sql.all(`SELECT "receiver", "owner", "token", "leaseUntil", "updatedAt" FROM "ReceiverLease" ORDER BY "receiver"`);
      return rows.map((raw) => {
        const row = rowSchema.parse(raw);
        return {
          receiver: row.receiver,
          owner: row.owner ?? undefined,
          token: row.token,
          leaseUntil: row.leaseUntil ?? undefined,
          updatedAt: row.updatedAt,
        };
      });
    },
  };
}

export type ReceiversRepo = ReturnType<typeof receiversRepo>;
