// Token usage as the model servers reported it, added up from the turns: per chat, person or day
// or model (`parley usage`), and a person's or a chat's total since a time (daily budgets).
import { z } from 'zod';
import { intColumn } from '../sql/columns.ts';
import type { SqlDriver } from '../sql/driver.ts';

export type UsageGrouping = 'chat' | 'person' | 'day' | 'model';

interface UsageTotals {
  turns: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
}

export interface UsageRow extends UsageTotals {
  /**
   * The chat (channel:chatId), the person (channel:userId), the day (YYYY-MM-DD, UTC) or the model
   * (its configured name; "(unrecorded)" for turns from before models were recorded or that never got an answer).
   */
  key: string;
  /** The person's name as the turn's origin gives it (by person only). */
  name?: string;
}

const totalsSchema = z.object({
  turns: intColumn,
  promptTokens: intColumn,
  completionTokens: intColumn,
  cachedTokens: intColumn,
  totalTokens: intColumn,
});
const rowSchema = totalsSchema.extend({ key: z.string(), name: z.string().nullish() });

const SUMS = `COUNT(*) AS "turns", COALESCE(SUM(t."promptTokens"), 0) AS "promptTokens",
  COALESCE(SUM(t."completionTokens"), 0) AS "completionTokens", COALESCE(SUM(t."cachedTokens"), 0) AS "cachedTokens",
  COALESCE(SUM(t."totalTokens"), 0) AS "totalTokens"`;

/** The requester's id and name in a turn's origin (JSON text). */
function requester(provider: SqlDriver['provider'], field: 'id' | 'displayName'): string {
  return provider === 'postgresql'
    ? `(t."origin"::jsonb -> 'requester' ->> '${field}')`
    : `json_extract(t."origin", '$.requester.${field}')`;
}

/** The model key of turns that have none recorded. */
const UNRECORDED_MODEL = '(unrecorded)';

function groupKey(provider: SqlDriver['provider'], by: UsageGrouping): string {
  if (by === 'chat') return `s."channel" || ':' || s."chatId"`;
  if (by === 'model') return `COALESCE(t."model", '${UNRECORDED_MODEL}')`;
  if (by === 'person') return `s."channel" || ':' || ${requester(provider, 'id')}`;
  return provider === 'postgresql' ? `to_char(t."startedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD')` : `substr(t."startedAt", 1, 10)`;
}

export function usageRepo(sql: SqlDriver) {
  return {
    /** Usage of the turns started at or after `from`, grouped, the largest total first. */
    async grouped(by: UsageGrouping, from: Date): Promise<UsageRow[]> {
      const key = groupKey(sql.provider, by);
      const name = by === 'person' ? `, MAX(${requester(sql.provider, 'displayName')}) AS "name"` : '';
      const rows = await sql.all(
        `SELECT ${key} AS "key"${name}, ${SUMS} FROM "Turn" t JOIN "Session" s ON s."id" = t."sessionId"
          WHERE t."startedAt" >= $1 GROUP BY ${key} ORDER BY ${by === 'day' ? `${key}` : `"totalTokens" DESC, ${key}`}`,
        [from],
      );
      return rows.map((raw) => {
        const { name: personName, ...row } = rowSchema.parse(raw);
        return { ...row, ...(personName ? { name: personName } : {}) };
      });
    },

    /** Tokens of the person's turns on a channel since `from`. */
    async ofPerson(channel: string, userId: string, from: Date): Promise<number> {
      const rows = await sql.all(
        `SELECT COALESCE(SUM(t."totalTokens"), 0) AS "n" FROM "Turn" t JOIN "Session" s ON s."id" = t."sessionId"
          WHERE t."startedAt" >= $1 AND s."channel" = $2 AND ${requester(sql.provider, 'id')} = $3`,
        [from, channel, userId],
      );
      return intColumn.parse(rows[0]?.n);
    },

    /** Tokens of the turns in a chat (all its threads and sessions) since `from`. */
    async ofChat(channel: string, chatId: string, from: Date): Promise<number> {
      const rows = await sql.all(
        `SELECT COALESCE(SUM(t."totalTokens"), 0) AS "n" FROM "Turn" t JOIN "Session" s ON s."id" = t."sessionId"
          WHERE t."startedAt" >= $1 AND s."channel" = $2 AND s."chatId" = $3`,
        [from, channel, chatId],
      );
      return intColumn.parse(rows[0]?.n);
    },
  };
}
