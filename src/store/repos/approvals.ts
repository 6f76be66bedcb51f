import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { SentRefSchema } from '../../core/types.ts';
import { isUniqueViolation } from '../database.ts';
import { boolColumn, dateColumn, intColumn, optionalText } from '../sql/columns.ts';
import type { SqlDriver, SqlValue } from '../sql/driver.ts';
import type { ApprovalRecord, ApprovalStatus, Decision, NewApproval } from '../types.ts';

const COLUMNS = `"id", "token", "code", "turnId", "sessionId", "messageId", "toolCallId", "toolName", "arguments", "argumentsHash",
  "requesterId", "requesterName", "status", "decidedById", "decidedByName", "decidedAt", "reason", "alwaysAllow", "promptRef",
  "expiresAt", "createdAt"`;

const rowSchema = z.object({
  id: z.string(),
  token: z.string(),
  code: z.string(),
  turnId: z.string(),
  sessionId: z.string(),
  messageId: intColumn,
  toolCallId: z.string(),
  toolName: z.string(),
  arguments: z.string(),
  argumentsHash: z.string(),
  requesterId: z.string(),
  requesterName: z.string(),
  status: z.enum(['pending', 'approved', 'denied', 'expired']),
  decidedById: z.string().nullable(),
  decidedByName: z.string().nullable(),
  decidedAt: dateColumn.nullable(),
  reason: optionalText,
  alwaysAllow: boolColumn,
  promptRef: z.string().nullable(),
  expiresAt: dateColumn,
  createdAt: dateColumn,
});

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

function toRecord(raw: unknown): ApprovalRecord {
  const row = rowSchema.parse(raw);
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
    status: row.status,
    decidedBy: row.decidedById ? { id: row.decidedById, displayName: row.decidedByName ?? row.decidedById } : undefined,
    decidedAt: row.decidedAt ?? undefined,
    reason: row.reason,
    alwaysAllow: row.alwaysAllow,
    promptRef: row.promptRef ? SentRefSchema.parse(JSON.parse(row.promptRef)) : undefined,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
  };
}

export function approvalsRepo(sql: SqlDriver) {
  const one = async (where: string, value: string) => {
    const rows = await sql.all(`SELECT ${COLUMNS} FROM "Approval" WHERE ${where} = $1`, [value]);
    return rows[0] ? toRecord(rows[0]) : undefined;
  };
  return {
    async create(input: NewApproval): Promise<ApprovalRecord> {
      for (let attempt = 0; ; attempt++) {
        try {
          const rows = await sql.all(
            `INSERT INTO "Approval" ("id", "token", "code", "turnId", "sessionId", "messageId", "toolCallId", "toolName", "arguments",
              "argumentsHash", "requesterId", "requesterName", "status", "alwaysAllow", "expiresAt", "createdAt")
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', $13, $14, $15) RETURNING ${COLUMNS}`,
            [
              randomUUID(),
              newApprovalToken(),
              newCode(),
              input.turnId,
              input.sessionId,
              input.messageId,
              input.toolCallId,
              input.toolName,
              input.arguments,
              hashArguments(input.arguments),
              input.requester.id,
              input.requester.displayName,
              false,
              input.expiresAt,
              new Date(),
            ],
          );
          return toRecord(rows[0]);
        } catch (error) {
          // The call has its approval already (another process, a retry), or a random token or
          // code collided: draw again (a handful of tries is plenty).
          if (!isUniqueViolation(error) || attempt >= 5) throw error;
          const rows = await sql.all(`SELECT ${COLUMNS} FROM "Approval" WHERE "turnId" = $1 AND "toolCallId" = $2`, [
            input.turnId,
            input.toolCallId,
          ]);
          if (rows[0]) return toRecord(rows[0]);
        }
      }
    },

    byToken: (token: string) => one('"token"', token),

    byCode: (code: string) => one('"code"', code.toUpperCase()),

    get: (id: string) => one('"id"', id),

    async forTurn(turnId: string): Promise<ApprovalRecord[]> {
      const rows = await sql.all(`SELECT ${COLUMNS} FROM "Approval" WHERE "turnId" = $1 ORDER BY "createdAt" ASC`, [turnId]);
      return rows.map(toRecord);
    },

    /**
     * pending → decided, as one conditional update: true for exactly one caller, however many
     * clicks or processes race. Approvals (not denials) past their expiry are refused.
     */
    async decide(id: string, decision: Decision, now = new Date()): Promise<boolean> {
      const values = [
        decision.status,
        decision.by.id,
        decision.by.displayName,
        now,
        decision.reason ?? null,
        decision.alwaysAllow ?? false,
        id,
      ];
      const unexpired = decision.status === 'approved' ? ` AND "expiresAt" > $8` : '';
      const changed = await sql.run(
        `UPDATE "Approval" SET "status" = $1, "decidedById" = $2, "decidedByName" = $3, "decidedAt" = $4, "reason" = $5, "alwaysAllow" = $6
          WHERE "id" = $7 AND "status" = 'pending'${unexpired}`,
        decision.status === 'approved' ? [...values, now] : values,
      );
      return changed === 1;
    },

    async setPromptRef(id: string, ref: unknown): Promise<void> {
      await sql.run(`UPDATE "Approval" SET "promptRef" = $1 WHERE "id" = $2`, [JSON.stringify(SentRefSchema.parse(ref)), id]);
    },

    async due(now = new Date(), limit = 100): Promise<ApprovalRecord[]> {
      const rows = await sql.all(
        `SELECT ${COLUMNS} FROM "Approval" WHERE "status" = 'pending' AND "expiresAt" <= $1 ORDER BY "expiresAt" ASC LIMIT $2`,
        [now, limit],
      );
      return rows.map(toRecord);
    },

    /** When the earliest pending approval expires (the expiry timer is armed to it). */
    async nextExpiry(): Promise<Date | undefined> {
      const rows = await sql.all(`SELECT MIN("expiresAt") AS "at" FROM "Approval" WHERE "status" = 'pending'`);
      const at = rows[0]?.at;
      return at === null || at === undefined ? undefined : dateColumn.parse(at);
    },

    async list(options: { status?: ApprovalStatus; sessionId?: string; limit?: number } = {}): Promise<ApprovalRecord[]> {
      const where: string[] = [];
      const values: SqlValue[] = [];
      if (options.status) where.push(`"status" = $${values.push(options.status)}`);
      if (options.sessionId) where.push(`"sessionId" = $${values.push(options.sessionId)}`);
      const rows = await sql.all(
        `SELECT ${COLUMNS} FROM "Approval"${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY "createdAt" DESC LIMIT $${values.push(options.limit ?? 100)}`,
        values,
      );
      return rows.map(toRecord);
    },
  };
}

export type ApprovalsRepo = ReturnType<typeof approvalsRepo>;
