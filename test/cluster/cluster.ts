// N real Parley processes (the entry point, as child processes) on one fresh PostgreSQL database,
// each serving Telegram in webhook mode on its own port, behind one fake Bot API and one fake model.
// The fake posts updates to one webhook URL at a time: `routeTo` picks the process that gets the next ones.
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { FakeModelServer } from '../fakes/model-server.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { killAll, startParley, type ParleyProcess } from '../helpers/child.ts';
import { tempDir } from '../helpers/harness.ts';
import { freshDatabase } from './pg-database.ts';

export interface Member {
  name: string;
  parley: ParleyProcess;
  webhook: string;
}

export interface Cluster {
  tg: FakeTelegram;
  model: FakeModelServer;
  dir: string;
  databaseUrl: string;
  start(name: string, env?: Record<string, string>): Promise<Member>;
  routeTo(member: Member): void;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startCluster(prefix: string, baseEnv: Record<string, string> = {}): Promise<Cluster> {
  const db = await freshDatabase(prefix);
  const tg = await FakeTelegram.start();
  const model = await FakeModelServer.start();
  const dir = tempDir('parley-cluster-');
  return {
    tg,
    model,
    dir,
    databaseUrl: db.url,
    async start(name, env = {}) {
      const port = await freePort();
      const webhook = `http://127.0.0.1:${port}/telegram`;
      const parley = startParley({
        TELEGRAM_BOT_TOKEN: tg.token,
        TELEGRAM_API_ROOT: tg.apiRoot,
        TELEGRAM_WEBHOOK_URL: webhook,
        PARLEY_HTTP_PORT: String(port),
        OPENAI_BASE_URL: model.url,
        OPENAI_MODEL: 'fake-model',
        OPENAI_API_KEY: 'test-key',
        DATABASE_URL: db.url,
        ...baseEnv,
        ...env,
      });
      await parley.ready();
      return { name, parley, webhook };
    },
    routeTo(member) {
      if (!tg.webhook) throw new Error('no webhook is set');
      tg.webhook = { ...tg.webhook, url: member.webhook };
    },
    async close() {
      killAll();
      await tg.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    },
  };
}
