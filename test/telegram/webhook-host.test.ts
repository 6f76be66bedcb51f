// Webhook mode in the real entry point (a child process): Telegram's webhook and the web console are
// served by the one HTTP listener on PARLEY_HTTP_PORT; the old TELEGRAM_WEBHOOK_* listener
// variables stop start-up with one line naming the new ones.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { deriveWebhookSecret } from '../../adapters/telegram/config.ts';
import { killAll, startParley } from '../helpers/child.ts';
import { waitFor } from '../helpers/harness.ts';
import { telegramWorld } from '../helpers/telegram-world.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const world = () => telegramWorld(cleanups, 'parley-webhook-');

describe('telegram: webhook on the one HTTP listener', () => {
  it('serves the webhook and the web console on the same port; a wrong secret gets 401', { timeout: 60_000 }, async () => {
    const { tg, model, env } = await world();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const parley = startParley({ ...env, PARLEY_WEB: 'on', PARLEY_HTTP_PORT: String(port), TELEGRAM_WEBHOOK_URL: `${base}/telegram` });
    await parley.ready();
    expect(parley.output()).toContain(`telegram @parley_test_bot (webhook ${base}/telegram, served at ${base}/telegram)`);
    expect(parley.output()).toContain(`web console at ${base}`);
    const secret = deriveWebhookSecret(tg.token);
    expect(tg.webhook).toMatchObject({ url: `${base}/telegram`, secret_token: secret });

    // The fake Bot API pushes the update to PARLEY_HTTP_PORT/telegram with the secret.
    model.enqueue({ text: 'Hello through the shared port.' });
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const { update } = tg.say(alice, dm, 'hi');
    await waitFor(() => tg.botMessages(dm).some((m) => m.message.text === 'Hello through the shared port.'), 'the answer', 20_000);
    expect(tg.webhookDeliveries).toEqual([{ update_id: update.update_id, status: 200 }]);

    // By hand: a new update with the secret is taken; without it, or with another, 401.
    model.enqueue({ text: 'Second answer.' });
    const next = {
      update_id: update.update_id + 1,
      message: { ...update.message!, message_id: update.message!.message_id + 100, text: 'again' },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/telegram`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(next),
      });
    expect((await post({ 'x-telegram-bot-api-secret-token': 'not-the-secret' })).status).toBe(401);
    expect((await post({})).status).toBe(401);
    expect((await post({ 'x-telegram-bot-api-secret-token': secret })).status).toBe(200);
    await waitFor(() => tg.botMessages(dm).some((m) => m.message.text === 'Second answer.'), 'the second answer', 20_000);
    expect(model.requests.map((r) => r.body.messages.at(-1)?.content)).toEqual(['hi', 'again']);

    // The console and the host's own endpoints from the same port.
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<html');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    expect(await parley.stop()).toBe(0);
    expect(parley.output()).not.toContain(tg.token);
  });

  it('a set TELEGRAM_WEBHOOK_PORT stops start-up with one line naming PARLEY_HTTP_PORT', { timeout: 60_000 }, async () => {
    const { env } = await world();
    const parley = startParley({ ...env, TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/telegram', TELEGRAM_WEBHOOK_PORT: '8443' });
    await expect(parley.ready()).rejects.toThrow(/exited with 1/);
    const lines = parley.output().trim().split('\n');
    expect(lines).toEqual([
      'parley: Invalid configuration: TELEGRAM_WEBHOOK_PORT is no longer read; set PARLEY_HTTP_PORT instead (the webhook is served by the one HTTP listener, at the path of TELEGRAM_WEBHOOK_URL)',
    ]);
  });
});
