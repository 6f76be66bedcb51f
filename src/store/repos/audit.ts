import { z } from 'zod';
import { dateColumn, intColumn, optionalText } from '../sql/columns.ts';
import type { SqlDriver } from '../sql/driver.ts';
import type { AuditEntry, AuditRecord } from '../types.ts';

const rowSchema = z.object({
  id: intColumn,
  approvalId: optionalText,
  token: optionalText,
  actorId: z.string(),
  actorName: z.string(),
  action: z.string(),
  outcome: z.string(),
  toolName: optionalText,
  argumentsHash: optionalText,
  detail: optionalText,
  at: dateColumn,
});

const COLUMNS = `"id", "approvalId", "token", "actorId", "actorName", "action", "outcome", "toolName", "argumentsHash", "detail", "at"`;

export function auditRepo(sql: SqlDriver) {
  return {
    async record(entry: AuditEntry): Promise<void> {
      await sql.run(
        `INSERT INTO "ApprovalAudit" ("approvalId", "token", "actorId", "actorName", "action", "outcome", "toolName", "argumentsHash", "detail", "at")
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          entry.approvalId ?? null,
          entry.token ?? null,
          entry.actor.id,
          entry.actor.displayName,
          entry.action,
          entry.outcome,
          entry.toolName ?? null,
          entry.argumentsHash ?? null,
          entry.detail ?? null,
          new Date(),
        ],
      );
    },

    async list(options: { approvalId?: string; limit?: number } = {}): Promise<AuditRecord[]> {
      const limit = options.limit ?? 200;
      const rows = options.approvalId
        ? await sql.all(`SELECT ${COLUMNS} FROM "ApprovalAudit" WHERE "approvalId" = $1 ORDER BY "id" DESC LIMIT $2`, [
            options.approvalId,
            limit,
          ])
        : await sql.all(`SELECT ${COLUMNS} FROM "ApprovalAudit" ORDER BY "id" DESC LIMIT $1`, [limit]);
      return rows.map((raw) => {
        const { actorId, actorName, ...row } = rowSchema.parse(raw);
        return { ...row, actor: { id: actorId, displayName: actorName } };
      });
    },
  };
}
