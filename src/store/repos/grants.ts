import type { Db } from '../database.ts';
import { isUniqueViolation } from '../database.ts';

export function grantsRepo(db: Db) {
  return {
    async has(sessionId: string, toolName: string): Promise<boolean> {
      return (await db.toolGrant.count({ where: { sessionId, toolName } })) > 0;
    },

    async grant(sessionId: string, toolName: string, grantedBy: string): Promise<void> {
      try {
        await db.toolGrant.create({ data: { sessionId, toolName, grantedBy } });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    },

    /** Removes one tool's grant, or all grants of the session when `toolName` is omitted. */
    async revoke(sessionId: string, toolName?: string): Promise<number> {
      const { count } = await db.toolGrant.deleteMany({ where: { sessionId, ...(toolName ? { toolName } : {}) } });
      return count;
    },

    async list(sessionId?: string): Promise<{ sessionId: string; toolName: string; grantedBy: string; createdAt: Date }[]> {
      return db.toolGrant.findMany({
        where: sessionId ? { sessionId } : {},
        orderBy: { createdAt: 'asc' },
        select: { sessionId: true, toolName: true, grantedBy: true, createdAt: true },
      });
    },
  };
}
