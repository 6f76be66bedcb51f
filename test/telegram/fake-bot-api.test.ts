// The fake Bot API answers the real grammY client the way Telegram does: these are the behaviours
// the adapter's tests rely on.
import { Api, GrammyError } from 'grammy';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTelegram } from '../fakes/telegram/index.ts';

let tg: FakeTelegram;
afterEach(() => tg?.close());

async function refusal(call: Promise<unknown>): Promise<GrammyError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof GrammyError)) throw new Error(`expected a Bot API error, got ${String(error)}`);
  return error;
}

describe('fake Bot API', () => {
  it('refuses a wrong token and unknown methods', async () => {
    tg = await FakeTelegram.start();
    expect((await refusal(new Api('1:AAWrongWrongWrongWrongWrong12', { apiRoot: tg.apiRoot }).getMe())).error_code).toBe(401);
    const api = new Api(tg.token, { apiRoot: tg.apiRoot });
    expect(await api.getMe()).toMatchObject({ id: tg.bot.id, is_bot: true, username: 'parley_test_bot' });
    expect((await refusal(api.raw.getChat({ chat_id: 1 }))).error_code).toBe(404);
  });

  it('enforces text limits, "message is not modified" and the General topic rule', async () => {
    tg = await FakeTelegram.start();
    const api = new Api(tg.token, { apiRoot: tg.apiRoot });
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    expect((await refusal(api.sendMessage(dm.id, 'x'.repeat(4097)))).description).toBe('Bad Request: message is too long');
    // The limit counts the text after entity parsing, not the markup.
    const long = await api.sendMessage(dm.id, `<b>${'x'.repeat(4096)}</b>`, { parse_mode: 'HTML' });
    expect(long.text).toHaveLength(4096);
    expect((await refusal(api.sendMessage(dm.id, '<b>open', { parse_mode: 'HTML' }))).description).toMatch(
      /^Bad Request: can't parse entities: /,
    );
    expect((await refusal(api.sendMessage(dm.id, '<marquee>x</marquee>', { parse_mode: 'HTML' }))).description).toMatch(
      /Unsupported start tag "marquee"/,
    );

    const sent = await api.sendMessage(dm.id, 'hello');
    expect((await refusal(api.editMessageText(dm.id, sent.message_id, 'hello'))).description).toMatch(
      /^Bad Request: message is not modified/,
    );
    expect((await refusal(api.editMessageText(dm.id, 999, 'x'))).description).toBe('Bad Request: message to edit not found');

    const forum = tg.group('Forum', { forum: true });
    expect((await refusal(api.sendMessage(forum.id, 'x', { message_thread_id: 1 }))).description).toBe(
      'Bad Request: message thread not found',
    );
    const topic = tg.createTopic(forum, 'Ops', alice);
    expect((await api.sendMessage(forum.id, 'x', { message_thread_id: topic })).message_thread_id).toBe(topic);
  });

  it('keeps keyboards only when an edit repeats them, checks callback_data, answers a query once', async () => {
    tg = await FakeTelegram.start();
    const api = new Api(tg.token, { apiRoot: tg.apiRoot });
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const tooLong = { inline_keyboard: [[{ text: 'x', callback_data: 'y'.repeat(65) }]] };
    expect((await refusal(api.sendMessage(dm.id, 'x', { reply_markup: tooLong }))).description).toBe('Bad Request: BUTTON_DATA_INVALID');

    const keyboard = { inline_keyboard: [[{ text: 'Go', callback_data: 'go' }]] };
    const sent = await api.sendMessage(dm.id, 'Proceed?', { reply_markup: keyboard });
    await api.editMessageText(dm.id, sent.message_id, 'Proceed? (edited)');
    expect(tg.message(dm, sent.message_id)!.message.reply_markup).toBeUndefined();

    await api.editMessageReplyMarkup(dm.id, sent.message_id, { reply_markup: keyboard });
    const query = tg.click(alice, dm, sent.message_id, 'Go');
    await api.answerCallbackQuery(query, { text: 'ok' });
    expect((await refusal(api.answerCallbackQuery(query))).description).toMatch(/query is too old/);
    expect(tg.answersTo(query)).toEqual([{ text: 'ok' }]);
  });

  it('long polling: waits for updates, confirms by offset, conflicts with a webhook and with another poller', async () => {
    tg = await FakeTelegram.start();
    const api = new Api(tg.token, { apiRoot: tg.apiRoot });
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    expect(await api.getUpdates({ timeout: 0 })).toEqual([]);

    const waiting = api.getUpdates({ timeout: 5 });
    const { update } = tg.say(alice, dm, 'hi');
    const [received] = await waiting;
    expect(received).toEqual(update);
    // Not confirmed yet: delivered again until an offset past it is given.
    expect((await api.getUpdates({ timeout: 0 })).map((u) => u.update_id)).toEqual([update.update_id]);
    expect(await api.getUpdates({ offset: update.update_id + 1, timeout: 0 })).toEqual([]);

    const first = api.getUpdates({ timeout: 5 });
    const second = api.getUpdates({ timeout: 0 });
    expect((await refusal(first)).error_code).toBe(409);
    await second;

    await api.setWebhook('http://127.0.0.1:9/hook', { secret_token: 'abc' });
    expect((await refusal(api.getUpdates({ timeout: 0 }))).description).toMatch(
      /^Conflict: can't use getUpdates method while webhook is active/,
    );
    expect((await refusal(api.setWebhook('http://127.0.0.1:9/hook', { secret_token: 'not allowed!' }))).error_code).toBe(400);
    await api.deleteWebhook();
    expect(await api.getUpdates({ timeout: 0 })).toEqual([]);
  });

  it('injected failures look like Telegram errors', async () => {
    tg = await FakeTelegram.start();
    const api = new Api(tg.token, { apiRoot: tg.apiRoot });
    const dm = tg.privateChat(tg.user('Alice'));
    tg.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } });
    const limited = await refusal(api.sendMessage(dm.id, 'x'));
    expect(limited).toMatchObject({ error_code: 429, parameters: { retry_after: 7 } });
    expect((await api.sendMessage(dm.id, 'x')).text).toBe('x');
  });
});
