// kill -9 while a finished turn's answer waits to be delivered (Telegram answers 429 and the bot
// waits out the retry-after): the answer must not be lost. The next start delivers it, once, without
// asking the model again; an answer that was delivered is never sent a second time.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { errors } from '../fakes/telegram/index.ts';
import { killAll, startParley } from '../helpers/child.ts';
import { waitFor } from '../helpers/harness.ts';
import { telegramWorld } from '../helpers/telegram-world.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

const ANSWER = 'The backup runs at 02:00 every night and keeps fourteen days of copies.';

describe('an answer owed when the process dies', () => {
  it('kill -9 while Telegram refuses the answer (429): the next start delivers it, once', async () => {
    const { tg, model, env } = await telegramWorld(cleanups, 'parley-owed-');
    model.enqueue({ text: ANSWER });
    // Refused for a minute: the bot waits it out (and is killed meanwhile).
    tg.failNext('sendMessage', errors.tooManyRequests(60));

    const first = startParley(env);
    await first.ready();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'when does the backup run?');
    await waitFor(() => tg.callsTo('sendMessage').some((c) => !c.ok), 'the refused answer', 15_000);
    // The turn is done and its answer recorded as owed (as soon as Telegram refused it).
    await sleep(300);
    await first.kill9();
    expect(tg.botMessages(dm)).toEqual([]);

    const second = startParley(env);
    await second.ready();
    await waitFor(() => tg.botMessages(dm).length > 0, 'the owed answer', 30_000);
    expect(await second.stop()).toBe(0);
    expect(tg.botMessages(dm).map((m) => m.message.text)).toEqual([ANSWER]);
    // Delivered from what was stored: the model was not asked again.
    expect(model.requests).toHaveLength(1);

    // Nothing is owed any more: a third start neither sends nor edits anything.
    const calls = tg.calls.filter((c) => c.method === 'sendMessage' || c.method === 'editMessageText').length;
    const third = startParley(env);
    await third.ready();
    await sleep(500);
    expect(await third.stop()).toBe(0);
    expect(tg.botMessages(dm).map((m) => m.message.text)).toEqual([ANSWER]);
    expect(tg.calls.filter((c) => c.method === 'sendMessage' || c.method === 'editMessageText')).toHaveLength(calls);
  }, 120_000);

  it('an answer recorded as owed that then landed is not sent again after kill -9', async () => {
    const { tg, model, env } = await telegramWorld(cleanups, 'parley-owed-');
    model.enqueue({ text: ANSWER });
    // Refused once for a second: recorded as owed; it lands after the wait, and the record is cleared.
    tg.failNext('sendMessage', errors.tooManyRequests(1));

    const first = startParley(env);
    await first.ready();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'when does the backup run?');
    await waitFor(() => tg.botMessages(dm).length > 0, 'the answer', 15_000);
    await sleep(300);
    await first.kill9();

    const second = startParley(env);
    await second.ready();
    await sleep(500);
    expect(await second.stop()).toBe(0);
    expect(tg.botMessages(dm).map((m) => m.message.text)).toEqual([ANSWER]);
    // Nothing was owed any more: not even an edit of the delivered message.
    expect(tg.callsTo('sendMessage').map((c) => c.ok)).toEqual([false, true]);
    expect(tg.callsTo('editMessageText')).toEqual([]);
  }, 120_000);
});
