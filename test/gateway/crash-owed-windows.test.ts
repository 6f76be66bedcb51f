// kill -9 at the exact step of a crash window (PARLEY_FAILPOINT), then start again: a finished
// turn's answer that never reached the chat, and an approval prompt never sent after its turn was
// suspended, are delivered by the next start, once, without asking the model again.
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, startParley } from '../helpers/child.ts';
import { waitFor } from '../helpers/harness.ts';
import { telegramWorld } from '../helpers/telegram-world.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

const ANSWER = 'The backup runs at 02:00 every night and keeps fourteen days of copies.';
const LONG =
  'Here is the whole plan. First, back up the database and check that the copy opens. Second, stop the bot with Ctrl-C and wait for it to say Stopped. Third, upgrade the package and start it again. Finally, send it a message to check that it answers.';

/** The process kills itself at `failpoint`; the next start (without it) delivers what was owed. */
async function crashAt(failpoint: string, env: Record<string, string>, ask: () => void): Promise<ReturnType<typeof startParley>> {
  const first = startParley({ ...env, PARLEY_FAILPOINT: failpoint });
  await first.ready();
  const died = new Promise<NodeJS.Signals | null>((resolve) => first.child.once('exit', (_code, signal) => resolve(signal)));
  ask();
  expect(await died).toBe('SIGKILL');
  const second = startParley(env);
  await second.ready();
  return second;
}

describe('crash windows of delivery', () => {
  it('killed after the turn finished, before its answer was sent: the next start delivers it, once', async () => {
    const { tg, model, env } = await telegramWorld(cleanups, 'parley-owed-');
    model.enqueue({ text: ANSWER });
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const second = await crashAt('answer-finished', env, () => tg.say(alice, dm, 'when does the backup run?'));
    await waitFor(() => tg.botMessages(dm).length > 0, 'the owed answer', 30_000);
    expect(await second.stop()).toBe(0);
    expect(tg.botMessages(dm).map((m) => m.message.text)).toEqual([ANSWER]);
    expect(model.requests).toHaveLength(1);
  }, 60_000);

  it('killed after the answer was sent, before its record was cleared: the next start shows it again only as a marked continuation', async () => {
    const { tg, model, env } = await telegramWorld(cleanups, 'parley-owed-');
    model.enqueue({ text: ANSWER });
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const second = await crashAt('answer-sent', env, () => tg.say(alice, dm, 'when does the backup run?'));
    await waitFor(() => tg.botMessages(dm).length > 1, 'the owed answer, again', 30_000);
    expect(await second.stop()).toBe(0);
    // Telegram cannot tell whether the send landed (it did): the repeat says what it is.
    expect(tg.botMessages(dm).map((m) => m.message.text)).toEqual([ANSWER, `… (continued after a restart)\n\n${ANSWER}`]);
    expect(model.requests).toHaveLength(1);
  }, 60_000);

  it('killed after the turn suspended for an approval, before the prompt was sent: the next start sends the prompt', async () => {
    const { tg, model, env } = await telegramWorld(cleanups, 'parley-owed-');
    model.enqueue(
      { toolCalls: [{ id: 'call_post', name: 'http_request', arguments: { url: 'http://127.0.0.1:9/hook', method: 'POST', body: 'x' } }] },
      { text: 'Not sent, as you wished.' },
    );
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const second = await crashAt('approval-suspended', { ...env, PARLEY_ALLOW_PRIVATE_HTTP: 'true' }, () =>
      tg.say(alice, dm, 'post to the hook please'),
    );
    const prompt = await waitFor(() => tg.botMessages(dm).find((m) => m.message.reply_markup), 'the approval prompt', 30_000);
    expect(prompt.message.text).toContain('http_request');
    // The prompt works: denying it ends the turn.
    tg.click(alice, dm, prompt.message.message_id, 'Deny');
    await waitFor(
      () => tg.botMessages(dm).some((m) => m.message.text === 'Not sent, as you wished.'),
      'the answer after the denial',
      30_000,
    );
    expect(await second.stop()).toBe(0);
    const prompts = tg.callsTo('sendMessage').filter((c) => c.ok && String(c.params.text).includes('Approval needed'));
    expect(prompts).toHaveLength(1);
    expect(model.requests).toHaveLength(2);
  }, 60_000);

  it('killed after a streamed message was sent, before its id was recorded: the answer follows in a marked continuation', async () => {
    const { tg, model, env } = await telegramWorld(cleanups, 'parley-owed-');
    const streamed = { ...env, TELEGRAM_EDIT_INTERVAL_PRIVATE: '50ms' };
    model.enqueue({ text: LONG, chunkSize: 6, delayMs: 100 }, { text: LONG, chunkSize: 40, delayMs: 5 });
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const second = await crashAt('stream-message-sent', streamed, () => tg.say(alice, dm, 'how do I upgrade?'));
    const [cut] = tg.botMessages(dm).map((m) => m.message.text ?? '');
    expect(LONG.startsWith(cut!) && cut!.length < LONG.length).toBe(true);
    await waitFor(() => tg.botMessages(dm).some((m) => m.message.text?.endsWith('that it answers.')), 'the continuation', 30_000);
    expect(await second.stop()).toBe(0);
    const texts = tg.botMessages(dm).map((m) => m.message.text ?? '');
    // The cut message stays (nothing can edit it); the answer follows, marked as the continuation.
    expect(texts).toEqual([cut, `… (continued after a restart)\n\n${LONG}`]);
  }, 60_000);
});
