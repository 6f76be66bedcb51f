import { z } from 'zod';
import { isUniqueViolation } from '../database.ts';
import { dateColumn, intColumn } from '../sql/columns.ts';
import type { SqlDriver } from '../sql/driver.ts';

const grantSchema = z.object({ sessionId: z.string(), toolName: z.string(), grantedBy: z.string(), createdAt: dateColumn });

export function grantsRepo(sql: SqlDriver) {
  return {
    async has(sessionId: string, toolName: string): Promise<boolean> {
      const rows = await sql.all(`SELECT COUNT(*) AS "n" FROM "ToolGrant" WHERE "sessionId" = $1 AND "toolName" = $2`, [
        sessionId,
        toolName,
      ]);
      return intColumn.parse(rows[0]?.n) > 0;
    },

    async grant(sessionId: string, toolName: string, grantedBy: string): Promise<void> {
      try {
        await sql.run(`INSERT INTO "ToolGrant" ("sessionId", "toolName", "grantedBy", "createdAt") VALUES ($1, $2, $3, $4)`, [
          sessionId,
          toolName,
          grantedBy,
          new Date(),
        ]);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    },

    /** Removes one tool's grant, or all grants of the session when `toolName` is omitted. */
    async revoke(sessionId: string, toolName?: string): Promise<number> {
      return toolName
        ? sql.run(`DELETE FROM "ToolGrant" WHERE "sessionId" = $1 AND "toolName" = $2`, [sessionId, toolName])
        : sql.run(`DELETE FROM "ToolGrant" WHERE "sessionId" = $1`, [sessionId]);
    },

    async list(sessionId?: string): Promise<z.infer<typeof grantSchema>[]> {
      const columns = `"sessionId", "toolName", "grantedBy", "createdAt"`;
      const rows = sessionId
        ? await sql.all(`SELECT ${columns} FROM "ToolGrant" WHERE "sessionId" = $1 ORDER BY "createdAt" ASC, "id" ASC`, [sessionId])
        : await sql.all(`SELECT ${columns} FROM "ToolGrant" ORDER BY "createdAt" ASC, "id" ASC`);
      return rows.map((row) => grantSchema.parse(row));
    },
  };
}
