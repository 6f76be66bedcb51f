// kill -9 while an answer streams into Telegram, then start again: the chat must end with one
// complete answer — the interrupted message continued in place, not left truncated next to a copy.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeModelServer } from '../fakes/model-server.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { killAll, startParley } from '../helpers/child.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

const ANSWER =
  'Here is the whole plan. First, back up the database and check that the copy opens. Second, stop the bot with Ctrl-C and wait for it to say Stopped. Third, upgrade the package and start it again. Finally, send it a message to check that it answers.';

describe('crash during a streamed answer', () => {
  it('kill -9 mid-stream: after a restart the chat has exactly one message, the complete answer', async () => {
    const tg = await FakeTelegram.start();
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-crash-');
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
    // Slow enough to be killed in the middle; the second process asks again and gets it all.
    model.enqueue({ text: ANSWER, chunkSize: 6, delayMs: 120 }, { text: ANSWER, chunkSize: 20, delayMs: 10 });

    const first = startParley(env);
    await first.ready();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'how do I upgrade?');
    await waitFor(() => tg.callsTo('editMessageText').some((c) => c.ok), 'the first streaming edit', 15_000);
    await first.kill9();
    const [cut] = tg.botMessages(dm);
    expect(cut!.message.text!.length).toBeLessThan(ANSWER.length);

    const second = startParley(env);
    await second.ready();
    await waitFor(() => tg.botMessages(dm).some((m) => m.message.text === ANSWER), 'the complete answer', 60_000);
    // A clean stop sends whatever is still queued, so nothing can arrive after the count.
    expect(await second.stop()).toBe(0);
    expect(model.requests).toHaveLength(2);
    const messages = tg.botMessages(dm);
    expect(messages.map((m) => m.message.text)).toEqual([ANSWER]);
    expect(messages[0]!.message.message_id).toBe(cut!.message.message_id);
  }, 120_000);
});
