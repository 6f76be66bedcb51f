import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deriveWebhookSecret } from '../../adapters/telegram/config.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { settled, tempDir, waitFor } from '../helpers/harness.ts';
import { botMessages, closeTelegram, drained, sessionKey, startTelegram } from './helpers.ts';

afterEach(closeTelegram);

describe('telegram: delivery, de-duplication and webhooks', () => {
  it('processes an update delivered twice only once', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    h.model.enqueue({ text: 'Answered once.' });

    const { update } = tg.say(alice, dm, 'hello');
    await botMessages(tg, dm);
    await settled(h.store, sessionKey(dm));
    tg.redeliver(update);
    await drained(tg);
    await settled(h.store, sessionKey(dm));
    expect(tg.botMessages(dm)).toHaveLength(1);
    expect(h.model.requests).toHaveLength(1);
  });

  it('remembers processed updates across a restart', async () => {
    const tg = await FakeTelegram.start();
    const model = await FakeModelServer.start();
    const dir = tempDir();
    const dbFile = join(dir, 'parley.db');
    try {
      const alice = tg.user('Alice');
      const dm = tg.privateChat(alice);
      model.enqueue({ text: 'First process answered.' });
      const first = await startTelegram({ tg, model, dbFile });
      const { update } = tg.say(alice, dm, 'hello');
      await botMessages(tg, dm);
      await settled(first.h.store, sessionKey(dm));
      await first.h.stop();

      // The confirmation was lost: Telegram sends the same update to the restarted bot.
      const second = await startTelegram({ tg, model, dbFile });
      tg.redeliver(update);
      await drained(tg);
      expect(tg.botMessages(dm)).toHaveLength(1);
      expect(model.requests).toHaveLength(1);
      await second.close();
      await first.close();
    } finally {
      await tg.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a second process polling with the same token stops the first with a clear error', async () => {
    const first = await startTelegram();
    const second = await startTelegram({ tg: first.tg });
    await waitFor(() => first.log.lines.find((l) => l.level === 'error'), 'the conflict error');
    expect(first.log.lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([
      'Telegram long polling stopped: Telegram getUpdates: 409 Conflict: terminated by other getUpdates request; make sure that only one bot instance is running; only one process may poll with a bot token (set TELEGRAM_WEBHOOK_URL to run several)',
    ]);
    // The second one serves the chat.
    const alice = second.tg.user('Alice');
    const dm = second.tg.privateChat(alice);
    second.model.enqueue({ text: 'Served by the second process.' });
    second.tg.say(alice, dm, 'who is there?');
    const [reply] = await botMessages(second.tg, dm);
    await waitFor(() => reply!.message.text === 'Served by the second process.', 'the answer');
  });

  it('drops malformed updates without crashing, still answering button presses it cannot read', async () => {
    const { tg, h, log } = await startTelegram();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.injectRaw({ message: { message_id: 'not a number', text: 'hi' } });
    tg.injectRaw({ callback_query: { id: 'q-broken', data: 'ap:x:a' } }); // no `from`
    await drained(tg);
    expect(log.lines.filter((l) => l.level === 'warn' && l.msg?.includes('malformed Telegram update'))).toHaveLength(2);
    expect(tg.callsTo('answerCallbackQuery').map((c) => c.params.callback_query_id)).toEqual(['q-broken']);

    h.model.enqueue({ text: 'Still here.' });
    tg.say(alice, dm, 'are you alive?');
    const [reply] = await botMessages(tg, dm);
    await waitFor(() => reply!.message.text === 'Still here.', 'the answer');
  });

  it('webhook mode: registers the webhook with a secret, serves updates on the HTTP listener, and refuses requests without the secret', async () => {
    const { tg, h, http, adapter, log } = await startTelegram({ webhookPath: '/telegram/hook' });
    const url = `${http.url}/telegram/hook`;
    const secret = deriveWebhookSecret(tg.token);
    expect(tg.webhook).toMatchObject({ url, secret_token: secret, allowed_updates: ['message', 'callback_query'] });
    expect(adapter.describe()).toEqual([`telegram @parley_test_bot (webhook ${url}, served at ${url})`]);

    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    h.model.enqueue({ text: 'Hello over the webhook.' });
    const { update } = tg.say(alice, dm, 'hi');
    const [reply] = await botMessages(tg, dm);
    await waitFor(() => reply!.message.text === 'Hello over the webhook.', 'the answer');
    expect(tg.webhookDeliveries).toEqual([{ update_id: update.update_id, status: 200 }]);
    expect(tg.callsTo('getUpdates')).toEqual([]);
    await settled(h.store, sessionKey(dm));

    const post = (headers: Record<string, string>, body: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    // An update Telegram never sent, posted by someone who found the URL.
    const second = { update_id: update.update_id + 1_000, message: { ...update.message!, message_id: 9_999, text: 'this one is forged' } };

    // Without the secret, or with a wrong one: refused, nothing processed.
    expect((await post({}, JSON.stringify(second))).status).toBe(401);
    expect((await post({ 'x-telegram-bot-api-secret-token': `${secret}x` }, JSON.stringify(second))).status).toBe(401);
    expect((await post({ 'x-telegram-bot-api-secret-token': 'wrong' }, JSON.stringify(second))).status).toBe(401);
    expect((await fetch(url)).status).toBe(405);
    expect((await fetch(`${url}/deeper`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(`${http.url}/elsewhere`, { method: 'POST', body: '{}' })).status).toBe(404);
    // Not JSON / not an update object: 400 or dropped, never a crash.
    expect((await post({ 'x-telegram-bot-api-secret-token': secret }, 'not json')).status).toBe(400);
    expect((await post({ 'x-telegram-bot-api-secret-token': secret }, '{"update_id": "x"}')).status).toBe(200);
    expect(log.lines.some((l) => l.msg?.includes('without the right secret token'))).toBe(true);
    expect(h.model.requests).toHaveLength(1);
    expect(tg.botMessages(dm)).toHaveLength(1);

    // The same update posted twice (Telegram retries when it gets no answer) is processed once.
    expect((await post({ 'x-telegram-bot-api-secret-token': secret }, JSON.stringify(update))).status).toBe(200);
    expect((await post({ 'x-telegram-bot-api-secret-token': secret }, JSON.stringify(update))).status).toBe(200);
    await settled(h.store, sessionKey(dm));
    expect(h.model.requests).toHaveLength(1);
    expect(tg.botMessages(dm)).toHaveLength(1);

    // A stopped adapter answers 503 (Telegram keeps the update and retries); the webhook stays registered for the next start.
    await h.stop();
    expect((await post({ 'x-telegram-bot-api-secret-token': secret }, JSON.stringify(update))).status).toBe(503);
    expect(tg.callsTo('deleteWebhook')).toEqual([]);
    expect(log.text()).not.toContain(tg.token);
  });

  it('webhook mode with TELEGRAM_WEBHOOK_SECRET uses that secret', async () => {
    const { tg, http } = await startTelegram({ webhookPath: '/hook', env: { TELEGRAM_WEBHOOK_SECRET: 'my-own_Secret123' } });
    const url = `${http.url}/hook`;
    expect(tg.webhook?.secret_token).toBe('my-own_Secret123');
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'x-telegram-bot-api-secret-token': deriveWebhookSecret(tg.token) },
      body: '{}',
    });
    expect(refused.status).toBe(401);
  });
});
