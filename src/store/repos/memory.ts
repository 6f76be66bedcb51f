import type { Db } from '../database.ts';
import type { MemoryFactRecord } from '../types.ts';

export function memoryRepo(db: Db) {
  return {
    async list(sessionId: string): Promise<MemoryFactRecord[]> {
      const rows = await db.memoryFact.findMany({ where: { sessionId }, orderBy: { key: 'asc' } });
      return rows.map((r) => ({ key: r.key, value: r.value, updatedAt: r.updatedAt }));
    },

    async set(sessionId: string, key: string, value: string): Promise<void> {
      await db.memoryFact.upsert({
        where: { sessionId_key: { sessionId, key } },
        create: { sessionId, key, value },
        update: { value },
      });
    },

    /** True when the fact existed. */
    async delete(sessionId: string, key: string): Promise<boolean> {
      const { count } = await db.memoryFact.deleteMany({ where: { sessionId, key } });
      return count > 0;
    },

    async count(sessionId: string): Promise<number> {
      return db.memoryFact.count({ where: { sessionId } });
    },
  };
}

export type MemoryRepo = ReturnType<typeof memoryRepo>;
