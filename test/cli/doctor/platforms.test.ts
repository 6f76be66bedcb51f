// `parley doctor`'s platform checks, each through the platform's SDK against the wire fake at the
// configured API root: a refused token, Telegram's last webhook delivery error, Discord's Message
// Content intent and slash commands, Feishu's credentials, bot and granted scopes. No token or
// secret is ever printed.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { slashCommandsOf } from '../../../adapters/discord/commands.ts';
import { discordDoctor } from '../../../adapters/discord/doctor.ts';
import { feishuDoctor } from '../../../adapters/feishu/doctor.ts';
import { telegramDoctor } from '../../../adapters/telegram/doctor.ts';
import { COMMANDS } from '../../../src/core/commands.ts';
import { FakeDiscord } from '../../fakes/discord/index.ts';
import { FakeFeishu } from '../../fakes/feishu/index.ts';
import { FeishuScopes, GRANTED } from '../../fakes/feishu/scopes.ts';
import { FakeModelServer } from '../../fakes/model-server.ts';
import { FakeTelegram } from '../../fakes/telegram/index.ts';
import { doctor, migratedDatabase, modelEnv } from './run.ts';

const cleanups: (() => Promise<void>)[] = [];
let base: Awaited<ReturnType<typeof migratedDatabase>>;
let model: FakeModelServer;
const CHANNELS = [telegramDoctor, discordDoctor, feishuDoctor];

beforeAll(async () => {
  base = await migratedDatabase();
  // A model that answers and lists itself: the exit code is the platform's.
  model = await FakeModelServer.start();
  model.setModels(['gpt-x']).setFallback(() => ({ text: 'OK' }));
  base = { ...base, env: { ...base.env, ...modelEnv(model.url) } };
  return () => model.close();
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function started<T extends { close(): Promise<void> }>(fake: Promise<T>): Promise<T> {
  const value = await fake;
  cleanups.push(() => value.close());
  return value;
}

describe('parley doctor: Telegram', () => {
  it('checks the token with getMe and reports the webhook last error, never the token', async () => {
    const tg = await started(FakeTelegram.start());
    const env = { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot };
    const polling = await doctor(base, env, CHANNELS);
    expect(polling.find('telegram', 'token')).toMatchObject({ status: 'ok', detail: expect.stringContaining('@parley_test_bot') });
    expect(polling.find('telegram', 'webhook')).toMatchObject({ status: 'ok', detail: 'polling mode (no webhook set)' });
    expect(polling.code, polling.out).toBe(0);

    tg.webhook = { url: 'https://bot.example.com/telegram' };
    tg.webhookLastError = { date: 1_700_000_000, message: 'Wrong response from the webhook: 502 Bad Gateway' };
    const hooked = await doctor(base, { ...env, TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/telegram' }, CHANNELS);
    expect(hooked.code).toBe(1);
    expect(hooked.find('telegram', 'webhook')).toMatchObject({
      status: 'problem',
      detail: expect.stringContaining('failed at 2023-11-14T22:13:20.000Z: Wrong response from the webhook: 502 Bad Gateway'),
    });
    expect(polling.out + hooked.out).not.toContain(tg.token);
  });

  it('says a wrong token is refused (401)', async () => {
    const tg = await started(FakeTelegram.start());
    const wrong = `${tg.bot.id}:AAWrongTokenForParleyTests_0123456789xyz`;
    const run = await doctor(base, { TELEGRAM_BOT_TOKEN: wrong, TELEGRAM_API_ROOT: tg.apiRoot }, CHANNELS);
    expect(run.code).toBe(1);
    expect(run.find('telegram', 'token')).toMatchObject({ status: 'problem', detail: expect.stringContaining('refused the token (401') });
    expect(run.out).not.toContain(wrong);
    expect(run.out).not.toContain(wrong.slice(12));
  });
});

describe('parley doctor: Discord', () => {
  it('names a missing Message Content intent and unregistered slash commands', async () => {
    const dc = await started(FakeDiscord.start({ messageContent: false }));
    const run = await doctor(base, { DISCORD_BOT_TOKEN: dc.token, DISCORD_API_ROOT: dc.apiRoot }, CHANNELS);
    expect(run.code).toBe(1);
    expect(run.find('discord', 'token')).toMatchObject({ status: 'ok', detail: expect.stringContaining('parley_test_bot') });
    expect(run.find('discord', 'Message Content')).toMatchObject({
      status: 'problem',
      fix: expect.stringContaining('Message Content Intent'),
    });
    expect(run.find('discord', 'slash commands')).toMatchObject({ status: 'warning', detail: 'none registered yet' });
    expect(run.out).not.toContain(dc.token);
  });

  it('passes with the intent on and the commands registered', async () => {
    const dc = await started(FakeDiscord.start());
    // What the adapter registers at start.
    dc.commands.set('global', slashCommandsOf(COMMANDS));
    const run = await doctor(base, { DISCORD_BOT_TOKEN: dc.token, DISCORD_API_ROOT: dc.apiRoot }, CHANNELS);
    expect(run.find('discord', 'Message Content')).toMatchObject({ status: 'ok' });
    expect(run.checks.filter((c) => c.area === 'discord' && c.status !== 'ok')).toEqual([]);
    expect(run.code, run.out).toBe(0);
  });

  it('says a wrong token is refused (401)', async () => {
    const dc = await started(FakeDiscord.start());
    const wrong = `${dc.token.slice(0, -4)}abcd`;
    const run = await doctor(base, { DISCORD_BOT_TOKEN: wrong, DISCORD_API_ROOT: dc.apiRoot }, CHANNELS);
    expect(run.find('discord', 'token')).toMatchObject({ status: 'problem', detail: 'Discord refused the token (401 Unauthorized)' });
    expect(run.out).not.toContain(wrong);
  });
});

describe('parley doctor: Feishu', () => {
  it('checks the credentials and the bot; scopes the API does not tell are skipped', async () => {
    const fs = await started(FakeFeishu.start());
    const env = { FEISHU_APP_ID: fs.appId, FEISHU_APP_SECRET: fs.appSecret, FEISHU_DOMAIN: fs.baseUrl };
    const run = await doctor(base, env, CHANNELS);
    expect(run.find('feishu', 'app')).toMatchObject({ status: 'ok' });
    expect(run.find('feishu', 'bot')).toMatchObject({ status: 'ok', detail: expect.stringContaining(fs.botOpenId) });
    expect(run.find('feishu', 'scopes')).toMatchObject({ status: 'skipped', detail: expect.stringContaining('the API does not tell') });
    expect(run.code, run.out).toBe(0);

    const wrong = await doctor(base, { ...env, FEISHU_APP_SECRET: 'a-wrong-secret-0123456789' }, CHANNELS);
    expect(wrong.code).toBe(1);
    expect(wrong.find('feishu', 'app')).toMatchObject({ status: 'problem', detail: 'refused: code 10014 app secret invalid' });
    expect(wrong.out).not.toContain('a-wrong-secret-0123456789');
    expect(run.out).not.toContain(fs.appSecret);
  });

  it('names the scopes the tenant has not granted', async () => {
    const fs = await started(FakeFeishu.start());
    const scopes = await started(
      FeishuScopes.start(fs.baseUrl, [
        { scope_name: 'im:message', grant_status: GRANTED },
        { scope_name: 'im:message.p2p_msg:readonly', grant_status: GRANTED },
        { scope_name: 'im:message.group_at_msg:readonly', grant_status: 0 },
      ]),
    );
    const run = await doctor(base, { FEISHU_APP_ID: fs.appId, FEISHU_APP_SECRET: fs.appSecret, FEISHU_DOMAIN: scopes.baseUrl }, CHANNELS);
    expect(run.code).toBe(1);
    expect(run.find('feishu', 'scopes')).toMatchObject({
      status: 'problem',
      detail: 'not granted: im:message.group_at_msg:readonly, im:message:readonly',
    });
  });
});
