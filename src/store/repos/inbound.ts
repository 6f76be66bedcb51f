import type { Db } from '../database.ts';
import { isUniqueViolation } from '../database.ts';
import { InboundSchema, type Inbound } from '../../core/types.ts';
import { textForModel } from '../../core/attachments.ts';
import { appendMessage } from './messages.ts';

export type InboundStatus = 'ignored' | 'queued' | 'done';

export function inboundRepo(db: Db) {
  return {
    /**
     * Record a platform event once. Returns false when (channel, eventId) was seen before: the
     * unique constraint makes this exact across processes and restarts.
     */
    async record(inbound: Inbound, sessionId: string | null, status: InboundStatus): Promise<boolean> {
      try {
        await db.inboundEvent.create({
          data: {
            channel: inbound.channel,
            eventId: inbound.eventId,
            sessionId,
            status,
            payload: status === 'queued' ? JSON.stringify(inbound) : null,
          },
        });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    async peekQueued(sessionId: string): Promise<Inbound | undefined> {
      const row = await db.inboundEvent.findFirst({ where: { sessionId, status: 'queued' }, orderBy: { id: 'asc' } });
      return row?.payload ? InboundSchema.parse(JSON.parse(row.payload)) : undefined;
    },

    async hasQueued(sessionId: string): Promise<boolean> {
      return (await db.inboundEvent.count({ where: { sessionId, status: 'queued' } })) > 0;
    },

    /**
     * Move the session's queued messages, oldest first, into the conversation of `turnId`: in one
     * transaction they are marked done and appended as user messages, so a crash can neither lose
     * nor duplicate one. Callers hold the session lease.
     */
    async claimAsMessages(sessionId: string, turnId: string, epoch: number, limit = 50): Promise<Inbound[]> {
      // Called after every tool batch: an empty mailbox should cost one cheap read, no transaction.
      if ((await db.inboundEvent.count({ where: { sessionId, status: 'queued' } })) === 0) return [];
      return db.$transaction(async (tx) => {
        const queued = await tx.inboundEvent.findMany({
          where: { sessionId, status: 'queued' },
          orderBy: { id: 'asc' },
          take: limit,
        });
        const claimed: Inbound[] = [];
        for (const row of queued) {
          const { count } = await tx.inboundEvent.updateMany({ where: { id: row.id, status: 'queued' }, data: { status: 'done', turnId } });
          if (count !== 1) continue;
          const inbound = InboundSchema.parse(JSON.parse(row.payload ?? '{}'));
          await appendMessage(tx, {
            sessionId,
            epoch,
            turnId,
            role: 'user',
            content: textForModel(inbound),
            senderId: inbound.sender.id,
            senderName: inbound.sender.displayName,
          });
          claimed.push(inbound);
        }
        return claimed;
      });
    },

    /** Sessions with queued messages, for the sweeper that picks up work nobody is running. */
    async sessionsWithQueued(limit = 100): Promise<string[]> {
      const rows = await db.inboundEvent.findMany({
        where: { status: 'queued', sessionId: { not: null } },
        distinct: ['sessionId'],
        select: { sessionId: true },
        take: limit,
      });
      return rows.flatMap((r) => (r.sessionId ? [r.sessionId] : []));
    },

    /** Drop dedup records older than `before` (they only guard against re-delivery). */
    async prune(before: Date): Promise<number> {
      const { count } = await db.inboundEvent.deleteMany({ where: { status: { in: ['ignored', 'done'] }, receivedAt: { lt: before } } });
      return count;
    },
  };
}
