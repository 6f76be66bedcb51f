// The model each chat's admin chose with /model: one row per chat (channel, chatId), read when a
// turn of that chat asks the model, so a choice made on one process holds on every other.
import { TABLES } from '../sql/tables.ts';
import type { SqlDriver } from '../sql/driver.ts';

const row = TABLES.ChatModel;

export interface ChatModelChoice {
  model: string;
  setBy: string;
  updatedAt: Date;
}

export function chatModelsRepo(sql: SqlDriver) {
  return {
    async get(channel: string, chatId: string): Promise<ChatModelChoice | undefined> {
      const rows = await sql.all(
        `SELECT "channel", "chatId", "model", "setBy", "updatedAt" FROM "ChatModel" WHERE "channel" = $1 AND "chatId" = $2`,
        [channel, chatId],
      );
      if (!rows[0]) return undefined;
      const { model, setBy, updatedAt } = row.parse(rows[0]);
      return { model, setBy, updatedAt };
    },

    async set(channel: string, chatId: string, model: string, setBy: string): Promise<void> {
      await sql.run(
        `INSERT INTO "ChatModel" ("channel", "chatId", "model", "setBy", "updatedAt") VALUES ($1, $2, $3, $4, $5)
          ON CONFLICT ("channel", "chatId") DO UPDATE SET "model" = excluded."model", "setBy" = excluded."setBy", "updatedAt" = excluded."updatedAt"`,
        [channel, chatId, model, setBy, new Date()],
      );
    },

    /** Back to the channel's model or the default; true when the chat had a choice. */
    async clear(channel: string, chatId: string): Promise<boolean> {
      return (await sql.run(`DELETE FROM "ChatModel" WHERE "channel" = $1 AND "chatId" = $2`, [channel, chatId])) > 0;
    },
  };
}
