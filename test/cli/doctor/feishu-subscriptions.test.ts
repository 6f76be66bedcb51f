// `parley doctor`'s Feishu event and callback checks: the app's subscriptions as the application
// API reports them (through the SDK against the wire fake, behind the front that answers the
// application routes), and in webhook mode the URL check sent to the callback request URL, which
// here is the real adapter's webhook on the real HTTP host.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FeishuAdapter } from '../../../adapters/feishu/adapter.ts';
import { loadFeishuConfig } from '../../../adapters/feishu/config.ts';
import { feishuDoctor } from '../../../adapters/feishu/doctor.ts';
import { HttpHost } from '../../../src/http/host.ts';
import { silentLogger } from '../../../src/log.ts';
import { FakeFeishu } from '../../fakes/feishu/index.ts';
import { type AppSubscriptionInfo, FeishuScopes, GRANTED } from '../../fakes/feishu/scopes.ts';
import { FakeModelServer } from '../../fakes/model-server.ts';
import { RecordingLogger } from '../../telegram/helpers.ts';
import { doctor, migratedDatabase, modelEnv } from './run.ts';

const cleanups: (() => Promise<void>)[] = [];
let base: Awaited<ReturnType<typeof migratedDatabase>>;
const GRANTS = [
  'im:message',
  'im:message.p2p_msg:readonly',
  'im:message.group_at_msg:readonly',
  'im:message:readonly',
  'application:application:self_manage',
].map((scope_name) => ({ scope_name, grant_status: GRANTED }));
const ENCRYPT_KEY = 'doctor-encrypt-key-0123456789';

beforeAll(async () => {
  base = await migratedDatabase();
  const model = await FakeModelServer.start();
  model.setModels(['gpt-x']).setFallback(() => ({ text: 'OK' }));
  base = { ...base, env: { ...base.env, ...modelEnv(model.url) } };
  return () => model.close();
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The fake platform with the application API in front, answering `app` for the app's information. */
async function platform(app: AppSubscriptionInfo | undefined) {
  const fs = await FakeFeishu.start();
  const front = await FeishuScopes.start(fs.baseUrl, GRANTS, app);
  cleanups.push(
    () => fs.close(),
    () => front.close(),
  );
  const env = { FEISHU_APP_ID: fs.appId, FEISHU_APP_SECRET: fs.appSecret, FEISHU_DOMAIN: front.baseUrl };
  return { fs, front, env };
}

/** The adapter's webhook on the one HTTP host, as `npm start` serves it in webhook mode. */
async function runningWebhook(env: Record<string, string>): Promise<string> {
  const config = loadFeishuConfig(env)!;
  const adapter = new FeishuAdapter({ config, log: new RecordingLogger() });
  const host = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    log: silentLogger,
    readiness: { pingDatabase: async () => {}, channels: [adapter.id], phase: () => 'started' },
  });
  adapter.routes(host);
  await host.listen();
  await adapter.start({ onMessage: async () => {}, onAction: async () => {} });
  cleanups.push(async () => {
    await adapter.stop();
    await host.close();
  });
  return host.url;
}

const subscribed = (mode: 'websocket' | 'webhook', url?: string): AppSubscriptionInfo => ({
  event: { subscription_type: mode, request_url: url ?? null, subscribed_events: ['im.message.receive_v1'] },
  callback_info: { callback_type: mode, request_url: url ?? null, subscribed_callbacks: ['card.action.trigger'] },
});

describe('parley doctor: Feishu events and callbacks', () => {
  it('passes a long-connection app subscribed to messages and card clicks', async () => {
    const { env } = await platform(subscribed('websocket'));
    const run = await doctor(base, env, [feishuDoctor]);
    expect(run.find('feishu', 'events')).toMatchObject({ status: 'ok', detail: 'subscribed, by long connection (FEISHU_MODE=ws)' });
    expect(run.find('feishu', 'callbacks')).toMatchObject({ status: 'ok' });
    expect(run.code, run.out).toBe(0);
  });

  it('names a missing card.action.trigger callback: buttons would do nothing (exit 1)', async () => {
    const { env } = await platform({ ...subscribed('websocket'), callback_info: { callback_type: 'websocket', subscribed_callbacks: [] } });
    const run = await doctor(base, env, [feishuDoctor]);
    expect(run.code).toBe(1);
    expect(run.find('feishu', 'callbacks')).toMatchObject({
      status: 'problem',
      detail: 'not subscribed: button clicks (approvals) never arrive, and Feishu shows no error',
      fix: expect.stringContaining('Callback configuration: add card.action.trigger'),
    });
  });

  it('names a missing message event, and callbacks delivered another way than FEISHU_MODE', async () => {
    const { env } = await platform({
      event: { subscription_type: 'websocket', subscribed_events: ['im.chat.member.bot.added_v1'] },
      callback_info: {
        callback_type: 'webhook',
        request_url: 'https://bot.example.com/feishu/events',
        subscribed_callbacks: ['card.action.trigger'],
      },
    });
    const run = await doctor(base, env, [feishuDoctor]);
    expect(run.code).toBe(1);
    expect(run.find('feishu', 'events')).toMatchObject({ status: 'problem', detail: 'not subscribed: the bot never hears a message' });
    expect(run.find('feishu', 'callbacks')).toMatchObject({
      status: 'problem',
      detail:
        'clicks arrive by request URL (FEISHU_MODE=webhook), but Parley runs with long connection (FEISHU_MODE=ws): they never reach it',
    });
  });

  it('says what it cannot see when the app may not read its own information (a warning, exit 0)', async () => {
    const { env } = await platform(undefined);
    const run = await doctor(base, env, [feishuDoctor]);
    expect(run.find('feishu', 'events and callbacks')).toMatchObject({
      status: 'warning',
      detail: "the API does not tell the app's subscriptions (code 99991672); without card.action.trigger button clicks never arrive",
      fix: expect.stringContaining('application:application:self_manage'),
    });
    expect(run.code, run.out).toBe(0);
  });

  it('in webhook mode sends the URL check to the callback URL: the running webhook answers it, with the encrypt key', async () => {
    const { fs, front, env } = await platform(undefined);
    const webhookEnv = { ...env, FEISHU_MODE: 'webhook', FEISHU_VERIFICATION_TOKEN: fs.verificationToken, FEISHU_ENCRYPT_KEY: ENCRYPT_KEY };
    const url = `${await runningWebhook(webhookEnv)}/feishu/events`;
    front.app = subscribed('webhook', url);

    const run = await doctor(base, webhookEnv, [feishuDoctor]);
    expect(run.find('feishu', 'callbacks')).toMatchObject({ status: 'ok', detail: `subscribed, by request URL ${url}` });
    expect(run.find('feishu', 'request URL answers')).toMatchObject({ status: 'ok', detail: `${url} answers the URL check` });
    expect(run.code, run.out).toBe(0);

    // Doctor run with another encrypt key than the running Parley: the webhook refuses it.
    const other = await doctor(base, { ...webhookEnv, FEISHU_ENCRYPT_KEY: 'another-encrypt-key-0123456789' }, [feishuDoctor]);
    expect(other.code).toBe(1);
    expect(other.find('feishu', 'request URL answers')).toMatchObject({
      status: 'problem',
      detail: expect.stringContaining('answered 401'),
    });
    expect(other.out).not.toContain(ENCRYPT_KEY);
    expect(other.out).not.toContain('another-encrypt-key-0123456789');

    // A callback URL that is not Parley's webhook path.
    front.app = subscribed('webhook', url.replace('/feishu/events', '/feishu'));
    const wrongPath = await doctor(base, webhookEnv, [feishuDoctor]);
    expect(wrongPath.code).toBe(1);
    expect(wrongPath.find('feishu', 'callbacks')).toMatchObject({
      status: 'problem',
      detail: `the request URL ${url.replace('/feishu/events', '/feishu')} does not end in /feishu/events`,
    });
  });
});
