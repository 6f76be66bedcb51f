// kill -9 in the middle of a turn, then start again: the conversation must not stay blocked by
// the dead process's session lease.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeModelServer } from '../fakes/model-server.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { echo, killAll, startBot } from './bot-process.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

describe('npm start: restart after kill -9', () => {
  it('answers the next message within 5 s of the ready block, and continues the interrupted turn', async () => {
    const tg = await FakeTelegram.start();
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-restart-');
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => model.close(),
      () => tg.close(),
    );
    const env = {
      TELEGRAM_BOT_TOKEN: tg.token,
      TELEGRAM_API_ROOT: tg.apiRoot,
      TELEGRAM_EDIT_INTERVAL_PRIVATE: '50ms',
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'fake-model',
      OPENAI_API_KEY: 'test-key',
      DATABASE_URL: `file:${join(dir, 'parley.db')}`,
    };
    // A slow model: the first answer is still streaming when the process dies.
    model.enqueue({ hang: true, text: 'Let me think' });
    const first = startBot({ cwd: dir, env });
    await first.ready();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'first question');
    await waitFor(() => model.requests.length >= 1, 'the model call', 15_000);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    model.setFallback(echo);
    const second = startBot({ cwd: dir, env });
    const readyAt = await second.ready();
    tg.say(alice, dm, 'second question');
    const answer = () => tg.botMessages(dm).find((m) => m.message.text?.includes('Answer to: second question'));
    await waitFor(answer, 'the answer to the new message', 45_000);
    const answeredAfterMs = Date.now() - readyAt;
    expect(answeredAfterMs, `answered ${answeredAfterMs} ms after the ready block`).toBeLessThan(5_000);
    expect(tg.botMessages(dm).some((m) => m.message.text?.includes('Answer to: first question'))).toBe(true);
  }, 120_000);
});
