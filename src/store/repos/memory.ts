import { z } from 'zod';
import { dateColumn, intColumn } from '../sql/columns.ts';
import type { SqlDriver } from '../sql/driver.ts';
import type { MemoryFactRecord } from '../types.ts';

const rowSchema = z.object({ key: z.string(), value: z.string(), updatedAt: dateColumn });

export function memoryRepo(sql: SqlDriver) {
  return {
    async list(sessionId: string): Promise<MemoryFactRecord[]> {
      const rows = await sql.all(`SELECT "key", "value", "updatedAt" FROM "MemoryFact" WHERE "sessionId" = $1 ORDER BY "key"`, [sessionId]);
      return rows.map((row) => rowSchema.parse(row));
    },

    async set(sessionId: string, key: string, value: string): Promise<void> {
      await sql.run(
        `INSERT INTO "MemoryFact" ("sessionId", "key", "value", "updatedAt") VALUES ($1, $2, $3, $4)
          ON CONFLICT ("sessionId", "key") DO UPDATE SET "value" = excluded."value", "updatedAt" = excluded."updatedAt"`,
        [sessionId, key, value, new Date()],
      );
    },

    /** True when the fact existed. */
    async delete(sessionId: string, key: string): Promise<boolean> {
      return (await sql.run(`DELETE FROM "MemoryFact" WHERE "sessionId" = $1 AND "key" = $2`, [sessionId, key])) > 0;
    },

    async count(sessionId: string): Promise<number> {
      const rows = await sql.all(`SELECT COUNT(*) AS "n" FROM "MemoryFact" WHERE "sessionId" = $1`, [sessionId]);
      return intColumn.parse(rows[0]?.n);
    },
  };
}

export type MemoryRepo = ReturnType<typeof memoryRepo>;
