// Counts per key and time window (a person's messages in a minute, notices sent in a day), in the
// database so that a limit holds across processes and restarts: one upsert adds and reads a count.
import { intColumn } from '../sql/columns.ts';
import type { SqlDriver } from '../sql/driver.ts';

export function rateCountsRepo(sql: SqlDriver) {
  return {
    /** Adds one to `key`'s count in the window that starts at `windowStart`; the count with it. */
    async add(key: string, windowStart: Date): Promise<number> {
      const [row] = await sql.all(
        `INSERT INTO "RateCount" ("key", "windowStart", "count") VALUES ($1, $2, 1)
          ON CONFLICT ("key", "windowStart") DO UPDATE SET "count" = "RateCount"."count" + 1 RETURNING "count"`,
        [key, windowStart],
      );
      return intColumn.parse(row?.count);
    },

    /** Forgets windows that started before `before`; how many. */
    prune(before: Date): Promise<number> {
      return sql.run(`DELETE FROM "RateCount" WHERE "windowStart" < $1`, [before]);
    },
  };
}
