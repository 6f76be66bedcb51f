import { HttpError } from 'grammy';
import { describe, expect, it } from 'vitest';
import { safeErrorMessage, toSafeError } from '../../adapters/telegram/api-errors.ts';
import { deriveWebhookSecret, loadTelegramConfig } from '../../adapters/telegram/config.ts';
import { telegramChannel } from '../../adapters/telegram/index.ts';
import { ConfigError } from '../../src/core/env.ts';
import { silentLogger } from '../../src/log.ts';

const TOKEN = '123456789:AAEhBOweik6ad9r_QXMENQjcrGbqCr4K-gQ';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadTelegramConfig({ TELEGRAM_BOT_TOKEN: TOKEN, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('telegram configuration', () => {
  it('is off without a token, long polling with one', async () => {
    expect(loadTelegramConfig({})).toBeUndefined();
    expect(await telegramChannel.fromEnv({ env: { TELEGRAM_BOT_TOKEN: ' ' }, log: silentLogger, botName: 'Parley' })).toBeUndefined();
    expect(loadTelegramConfig({ TELEGRAM_BOT_TOKEN: TOKEN })).toEqual({
      token: TOKEN,
      apiRoot: 'https://api.telegram.org',
      mode: { kind: 'polling' },
      allowedChats: new Set(),
      allowedUsers: new Set(),
      editIntervalMs: { direct: 1_000, group: 3_000 },
    });
  });

  it('reads the API root, allowlists, edit pacing and webhook settings', () => {
    const config = loadTelegramConfig({
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: 'http://127.0.0.1:8081/',
      TELEGRAM_ALLOWED_CHATS: '-1001234567890, 42',
      TELEGRAM_ALLOWED_USERS: '42',
      TELEGRAM_EDIT_INTERVAL_PRIVATE: '500ms',
      TELEGRAM_EDIT_INTERVAL_GROUP: '2s',
      TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/tg/hook',
    })!;
    expect(config.apiRoot).toBe('http://127.0.0.1:8081');
    expect([...config.allowedChats]).toEqual(['-1001234567890', '42']);
    expect([...config.allowedUsers]).toEqual(['42']);
    expect(config.editIntervalMs).toEqual({ direct: 500, group: 2_000 });
    expect(config.mode).toEqual({
      kind: 'webhook',
      url: 'https://bot.example.com/tg/hook',
      secretToken: deriveWebhookSecret(TOKEN),
      path: '/tg/hook',
    });
    expect(deriveWebhookSecret(TOKEN)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(deriveWebhookSecret(TOKEN)).not.toContain(TOKEN.split(':')[1]);
  });

  it('names the bad variable in one line, and never repeats the token', () => {
    const badToken = 'not-a-token-but-a-secret-value';
    let error: unknown;
    try {
      loadTelegramConfig({ TELEGRAM_BOT_TOKEN: badToken });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^Invalid configuration: TELEGRAM_BOT_TOKEN /);
    expect((error as Error).message).not.toContain(badToken);

    expect(configError({ TELEGRAM_ALLOWED_CHATS: '-100123,general' }).message).toMatch(
      /TELEGRAM_ALLOWED_CHATS expects comma-separated numeric/,
    );
    expect(configError({ TELEGRAM_ALLOWED_USERS: '@alice' }).message).toMatch(/TELEGRAM_ALLOWED_USERS/);
    expect(configError({ TELEGRAM_API_ROOT: 'ftp://x' }).message).toMatch(/TELEGRAM_API_ROOT expects an http/);
    expect(configError({ TELEGRAM_WEBHOOK_URL: 'example.com/hook' }).message).toMatch(/TELEGRAM_WEBHOOK_URL/);
    expect(configError({ TELEGRAM_WEBHOOK_SECRET: 'has spaces in it' }).message).toMatch(
      /TELEGRAM_WEBHOOK_SECRET expects 1-256 characters/,
    );
    expect(configError({ TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/' }).message).toMatch(/TELEGRAM_WEBHOOK_URL expects a path/);
    expect(configError({ TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/a[b]' }).message).toMatch(
      /TELEGRAM_WEBHOOK_URL expects a path of letters/,
    );
    expect(configError({ TELEGRAM_EDIT_INTERVAL_GROUP: 'soon' }).message).toMatch(/TELEGRAM_EDIT_INTERVAL_GROUP expects a duration/);
    expect(configError({ TELEGRAM_EDIT_INTERVAL_GROUP: 'x' }).message).not.toContain('\n');
  });

  it('refuses the old webhook listener variables with one line naming PARLEY_HTTP_HOST / PARLEY_HTTP_PORT', () => {
    const port = configError({ TELEGRAM_WEBHOOK_PORT: '8443' }).message;
    expect(port).toBe(
      'Invalid configuration: TELEGRAM_WEBHOOK_PORT is no longer read; set PARLEY_HTTP_PORT instead (the webhook is served by the one HTTP listener, at the path of TELEGRAM_WEBHOOK_URL)',
    );
    expect(configError({ TELEGRAM_WEBHOOK_HOST: '0.0.0.0' }).message).toMatch(
      /^Invalid configuration: TELEGRAM_WEBHOOK_HOST is no longer read; set PARLEY_HTTP_HOST instead/,
    );
    // Even without a token: whoever set it meant the webhook.
    expect(() => loadTelegramConfig({ TELEGRAM_WEBHOOK_PORT: '8443' })).toThrow(/PARLEY_HTTP_PORT/);
  });

  it('scrubs the token from network errors before they can be logged', () => {
    const cause = new Error(`request to https://api.telegram.org/bot${TOKEN}/getMe failed, reason: ECONNREFUSED`);
    const error = new HttpError(`Network request for 'getMe' failed! ${cause.message}`, cause);
    expect(safeErrorMessage(error, TOKEN)).not.toContain(TOKEN);
    const safe = toSafeError(error, TOKEN);
    expect(JSON.stringify({ ...safe, message: safe.message })).not.toContain(TOKEN);
    expect(safe.cause).toBeUndefined();
  });
});
