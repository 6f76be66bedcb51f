import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Db } from '../database.ts';
import { isUniqueViolation } from '../database.ts';
import type { ApprovalRecord, ApprovalStatus, Decision, NewApproval } from '../types.ts';
import { SentRefSchema } from '../../core/types.ts';

type Row = Awaited<ReturnType<Db['approval']['findUniqueOrThrow']>>;

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function newApprovalToken(): string {
  return randomBytes(12).toString('base64url');
}

function newCode(): string {
  let code = '';
  for (let i = 0; i < 6; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

function hashArguments(args: string): string {
  return createHash('sha256').update(args).digest('hex').slice(0, 16);
}

function toRecord(row: Row): ApprovalRecord {
  return {
    id: row.id,
    token: row.token,
    code: row.code,
    turnId: row.turnId,
    sessionId: row.sessionId,
    messageId: row.messageId,
    toolCallId: row.toolCallId,
    toolName: row.toolName,
    arguments: row.arguments,
    argumentsHash: row.argumentsHash,
    requester: { id: row.requesterId, displayName: row.requesterName },
    status: row.status as ApprovalStatus,
    decidedBy: row.decidedById ? { id: row.decidedById, displayName: row.decidedByName ?? row.decidedById } : undefined,
    decidedAt: row.decidedAt ?? undefined,
    reason: row.reason ?? undefined,
    alwaysAllow: row.alwaysAllow,
    promptRef: row.promptRef ? SentRefSchema.parse(JSON.parse(row.promptRef)) : undefined,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
  };
}

export function approvalsRepo(db: Db) {
  return {
    async create(input: NewApproval): Promise<ApprovalRecord> {
      for (let attempt = 0; ; attempt++) {
        try {
          const row = await db.approval.create({
            data: {
              id: randomUUID(),
              token: newApprovalToken(),
              code: newCode(),
              turnId: input.turnId,
              sessionId: input.sessionId,
              messageId: input.messageId,
              toolCallId: input.toolCallId,
              toolName: input.toolName,
              arguments: input.arguments,
              argumentsHash: hashArguments(input.arguments),
              requesterId: input.requester.id,
              requesterName: input.requester.displayName,
              status: 'pending',
              expiresAt: input.expiresAt,
            },
          });
          return toRecord(row);
        } catch (error) {
          // A random token or code collided: draw again (a handful of tries is plenty).
          if (!isUniqueViolation(error) || attempt >= 5) throw error;
          const existing = await db.approval.findUnique({
            where: { turnId_toolCallId: { turnId: input.turnId, toolCallId: input.toolCallId } },
          });
          if (existing) return toRecord(existing);
        }
      }
    },

    async byToken(token: string): Promise<ApprovalRecord | undefined> {
      const row = await db.approval.findUnique({ where: { token } });
      return row ? toRecord(row) : undefined;
    },

    async byCode(code: string): Promise<ApprovalRecord | undefined> {
      const row = await db.approval.findUnique({ where: { code: code.toUpperCase() } });
      return row ? toRecord(row) : undefined;
    },

    async get(id: string): Promise<ApprovalRecord | undefined> {
      const row = await db.approval.findUnique({ where: { id } });
      return row ? toRecord(row) : undefined;
    },

    async forTurn(turnId: string): Promise<ApprovalRecord[]> {
      const rows = await db.approval.findMany({ where: { turnId }, orderBy: { createdAt: 'asc' } });
      return rows.map(toRecord);
    },

    /**
     * pending → decided, as one conditional update: true for exactly one caller, however many
     * clicks or processes race. Approvals (not denials) past their expiry are refused.
     */
    async decide(id: string, decision: Decision, now = new Date()): Promise<boolean> {
      const { count } = await db.approval.updateMany({
        where: { id, status: 'pending', ...(decision.status === 'approved' ? { expiresAt: { gt: now } } : {}) },
        data: {
          status: decision.status,
          decidedById: decision.by.id,
          decidedByName: decision.by.displayName,
          decidedAt: now,
          reason: decision.reason ?? null,
          alwaysAllow: decision.alwaysAllow ?? false,
        },
      });
      return count === 1;
    },

    async setPromptRef(id: string, ref: unknown): Promise<void> {
      await db.approval.update({ where: { id }, data: { promptRef: JSON.stringify(SentRefSchema.parse(ref)) } });
    },

    async due(now = new Date(), limit = 100): Promise<ApprovalRecord[]> {
      const rows = await db.approval.findMany({ where: { status: 'pending', expiresAt: { lte: now } }, take: limit });
      return rows.map(toRecord);
    },

    /** When the earliest pending approval expires (the expiry timer is armed to it). */
    async nextExpiry(): Promise<Date | undefined> {
      const row = await db.approval.findFirst({ where: { status: 'pending' }, orderBy: { expiresAt: 'asc' }, select: { expiresAt: true } });
      return row?.expiresAt;
    },

    async list(options: { status?: ApprovalStatus; sessionId?: string; limit?: number } = {}): Promise<ApprovalRecord[]> {
      const rows = await db.approval.findMany({
        where: { ...(options.status ? { status: options.status } : {}), ...(options.sessionId ? { sessionId: options.sessionId } : {}) },
        orderBy: { createdAt: 'desc' },
        take: options.limit ?? 100,
      });
      return rows.map(toRecord);
    },
  };
}

export type ApprovalsRepo = ReturnType<typeof approvalsRepo>;
