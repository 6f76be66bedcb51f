// SIGTERM ends `npm start` within 10 s even when the platform and the model stop answering, and
// the turn it interrupted is continued by the next start.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.ts';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { BlackholeProxy } from '../fakes/blackhole-proxy.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { echo, killAll, startBot, type Exit } from './bot-process.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

describe('npm start: shutdown', () => {
  it('SIGTERM with the Bot API and the model not answering: exits within 10 s; the next start continues the turn', async () => {
    const tg = await FakeTelegram.start();
    const proxy = await BlackholeProxy.start(tg.apiRoot);
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-shutdown-');
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => model.close(),
      () => tg.close(),
      () => proxy.stop(),
    );
    const databaseUrl = `file:${join(dir, 'parley.db')}`;
    const env = {
      TELEGRAM_BOT_TOKEN: tg.token,
      TELEGRAM_API_ROOT: proxy.url,
      TELEGRAM_EDIT_INTERVAL_PRIVATE: '50ms',
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'fake-model',
      OPENAI_API_KEY: 'test-key',
      DATABASE_URL: databaseUrl,
    };
    model.enqueue({ hang: true, text: 'Let me think' });

    const first = startBot({ cwd: dir, env });
    await first.ready();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'first question');
    await waitFor(() => model.requests.length >= 1, 'the model call', 15_000);

    proxy.blackhole();
    first.child.kill('SIGTERM');
    const bound = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 10_000).unref());
    const result: Exit | 'still running' = await Promise.race([first.exited, bound]);
    expect(result, first.stdout() + first.stderr()).not.toBe('still running');
    expect((result as Exit).signal).toBeNull();
    expect((result as Exit).stdout).toContain('Stopping (SIGTERM)');
    expect(proxy.swallowed).toBeGreaterThan(0);
    // Each adapter's stop is bounded on its own, within the app's bound; the token never shows.
    expect((result as Exit).stderr).toContain('stopping telegram did not finish within 1.5 s');
    expect((result as Exit).stdout + (result as Exit).stderr).not.toContain(tg.token);

    // Left resumable: the turn is still `running` in the database.
    const store = await openStore(parseDatabaseUrl(databaseUrl));
    const turns = await store.turns.list();
    await store.close();
    expect(turns.map((t) => t.status)).toEqual(['running']);

    proxy.forward();
    model.setFallback(echo);
    const second = startBot({ cwd: dir, env });
    await second.ready();
    await waitFor(
      () => tg.botMessages(dm).find((m) => m.message.text?.includes('Answer to: first question')),
      'the continued answer',
      15_000,
    );
    second.child.kill('SIGINT');
    expect((await second.exited).code).toBe(0);
  }, 120_000);
});
