import type { Db } from '../database.ts';
import type { AuditEntry, AuditRecord } from '../types.ts';

export function auditRepo(db: Db) {
  return {
    async record(entry: AuditEntry): Promise<void> {
      await db.approvalAudit.create({
        data: {
          approvalId: entry.approvalId ?? null,
          token: entry.token ?? null,
          actorId: entry.actor.id,
          actorName: entry.actor.displayName,
          action: entry.action,
          outcome: entry.outcome,
          toolName: entry.toolName ?? null,
          argumentsHash: entry.argumentsHash ?? null,
          detail: entry.detail ?? null,
        },
      });
    },

    async list(options: { approvalId?: string; limit?: number } = {}): Promise<AuditRecord[]> {
      const rows = await db.approvalAudit.findMany({
        where: options.approvalId ? { approvalId: options.approvalId } : {},
        orderBy: { id: 'desc' },
        take: options.limit ?? 200,
      });
      return rows.map((r) => ({
        id: r.id,
        approvalId: r.approvalId ?? undefined,
        token: r.token ?? undefined,
        actor: { id: r.actorId, displayName: r.actorName },
        action: r.action,
        outcome: r.outcome,
        toolName: r.toolName ?? undefined,
        argumentsHash: r.argumentsHash ?? undefined,
        detail: r.detail ?? undefined,
        at: r.at,
      }));
    },
  };
}
