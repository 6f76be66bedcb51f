// What a test of `npm start` against Telegram needs around the child process: the fake Bot API and
// the fake model on 127.0.0.1, a temporary folder holding the SQLite database, and the environment
// that points the bot at them.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { FakeModelServer } from '../fakes/model-server.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { tempDir } from './harness.ts';

/** Starts the fakes; `cleanups` gets what closes them and removes the folder (run in reverse order). */
export async function telegramWorld(cleanups: (() => unknown)[], prefix: string) {
  const tg = await FakeTelegram.start();
  const model = await FakeModelServer.start();
  const dir = tempDir(prefix);
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => model.close(),
    () => tg.close(),
  );
  const file = join(dir, 'parley.db');
  const env = {
    TELEGRAM_BOT_TOKEN: tg.token,
    TELEGRAM_API_ROOT: tg.apiRoot,
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'fake-model',
    OPENAI_API_KEY: 'test-key',
    DATABASE_URL: `file:${file}`,
  };
  return { tg, model, dir, file, env };
}
