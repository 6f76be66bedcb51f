import { randomUUID } from 'node:crypto';
import { isUniqueViolation, type Db } from '../database.ts';
import type { SessionRecord, SessionSpec } from '../types.ts';
import type { ChatType } from '../../core/types.ts';

type Row = Awaited<ReturnType<Db['session']['findUniqueOrThrow']>>;

function toRecord(row: Row): SessionRecord {
  return {
    id: row.id,
    key: row.key,
    channel: row.channel,
    chatId: row.chatId,
    chatType: row.chatType as ChatType,
    threadId: row.threadId ?? undefined,
    userId: row.userId ?? undefined,
    epoch: row.epoch,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function sessionsRepo(db: Db) {
  return {
    /** The session for `spec.key`, created on first use. */
    async ensure(spec: SessionSpec): Promise<SessionRecord> {
      // Look first (the common case), create on a miss; a concurrent creator wins the unique key.
      const existing = await db.session.findUnique({ where: { key: spec.key } });
      if (existing) return toRecord(existing);
      try {
        const row = await db.session.create({
          data: {
            id: randomUUID(),
            key: spec.key,
            channel: spec.channel,
            chatId: spec.chatId,
            chatType: spec.chatType,
            threadId: spec.threadId ?? null,
            userId: spec.userId ?? null,
          },
        });
        return toRecord(row);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return toRecord(await db.session.findUniqueOrThrow({ where: { key: spec.key } }));
      }
    },

    async get(id: string): Promise<SessionRecord | undefined> {
      const row = await db.session.findUnique({ where: { id } });
      return row ? toRecord(row) : undefined;
    },

    async getByKey(key: string): Promise<SessionRecord | undefined> {
      const row = await db.session.findUnique({ where: { key } });
      return row ? toRecord(row) : undefined;
    },

    async list(options: { limit?: number; channel?: string } = {}): Promise<SessionRecord[]> {
      const rows = await db.session.findMany({
        where: options.channel ? { channel: options.channel } : {},
        orderBy: { updatedAt: 'desc' },
        take: options.limit ?? 100,
      });
      return rows.map(toRecord);
    },

    /** Start a fresh conversation: later history reads only see the new epoch. */
    async reset(id: string): Promise<number> {
      const row = await db.session.update({ where: { id }, data: { epoch: { increment: 1 } } });
      return row.epoch;
    },

    /**
     * Take (or extend) the session's lease: one conditional update, so exactly one process wins
     * even when several try at once.
     */
    async acquireLease(id: string, owner: string, ttlMs: number): Promise<boolean> {
      const now = new Date();
      const { count } = await db.session.updateMany({
        where: { id, OR: [{ leaseOwner: null }, { leaseOwner: owner }, { leaseUntil: { lt: now } }] },
        data: { leaseOwner: owner, leaseUntil: new Date(now.getTime() + ttlMs) },
      });
      return count === 1;
    },

    async renewLease(id: string, owner: string, ttlMs: number): Promise<boolean> {
      const { count } = await db.session.updateMany({
        where: { id, leaseOwner: owner },
        data: { leaseUntil: new Date(Date.now() + ttlMs) },
      });
      return count === 1;
    },

    /** Extends every lease `owner` holds (the process heartbeat: one statement for all its sessions). */
    async renewLeasesOf(owner: string, until: Date): Promise<number> {
      const { count } = await db.session.updateMany({ where: { leaseOwner: owner }, data: { leaseUntil: until } });
      return count;
    },

    async releaseLease(id: string, owner: string): Promise<void> {
      await db.session.updateMany({ where: { id, leaseOwner: owner }, data: { leaseOwner: null, leaseUntil: null } });
    },

    /** Everyone holding a session lease right now (expired or not), once each. */
    async leaseOwners(): Promise<string[]> {
      const rows = await db.session.findMany({
        where: { leaseOwner: { not: null } },
        select: { leaseOwner: true },
        distinct: ['leaseOwner'],
      });
      return rows.flatMap((row) => (row.leaseOwner ? [row.leaseOwner] : []));
    },

    /** Frees every lease held by these owners (processes known to be gone); returns how many. */
    async releaseLeasesOf(owners: readonly string[]): Promise<number> {
      if (owners.length === 0) return 0;
      const { count } = await db.session.updateMany({
        where: { leaseOwner: { in: [...owners] } },
        data: { leaseOwner: null, leaseUntil: null },
      });
      return count;
    },
  };
}
