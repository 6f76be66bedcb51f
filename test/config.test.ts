import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import { ConfigError } from '../src/core/env.ts';

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('expected a configuration error');
}

describe('configuration', () => {
  it('has working defaults with nothing set', () => {
    const config = loadConfig({});
    expect(config.database).toMatchObject({ provider: 'sqlite', url: 'file:./data/parley.db' });
    expect(config.model.configured).toBe(false);
    expect(config.agent).toMatchObject({ maxRounds: 10, loopWarnAt: 3, loopStopAt: 5 });
    expect(config.approvals.ttlMs).toBe(30 * 60_000);
    expect(config.bot.locale).toBe('auto');
  });

  it('reads PARLEY_LOCALE in any case and with _ or -', () => {
    expect(loadConfig({ PARLEY_LOCALE: 'zh_cn' }).bot.locale).toBe('zh-CN');
    expect(loadConfig({ PARLEY_LOCALE: 'EN' }).bot.locale).toBe('en');
    expect(loadConfig({ PARLEY_LOCALE: ' ' }).bot.locale).toBe('auto');
  });

  it('names the variable and what it expects in one line', () => {
    expect(configError({ OPENAI_BASE_URL: 'not a url' })).toBe(
      'Invalid configuration: OPENAI_BASE_URL expects an http:// or https:// URL (got "not a url")',
    );
    expect(configError({ DATABASE_URL: 'mysql://db/parley' })).toBe(
      'Invalid configuration: DATABASE_URL expects file:<path> (SQLite) or postgresql://... (got "mysql:...")',
    );
    expect(configError({ PARLEY_MAX_ROUNDS: 'lots' })).toMatch(
      /^Invalid configuration: PARLEY_MAX_ROUNDS expects a whole number from 1 to 100/,
    );
    expect(configError({ PARLEY_APPROVAL_TTL: 'soon' })).toMatch(/PARLEY_APPROVAL_TTL expects a duration such as 30m/);
    expect(configError({ PARLEY_GROUP_SESSION: 'everyone' })).toMatch(/PARLEY_GROUP_SESSION expects one of: shared, per-user/);
    expect(configError({ PARLEY_LOCALE: 'fr' })).toMatch(/PARLEY_LOCALE expects one of: auto, en, zh-CN/);
    expect(configError({ PARLEY_APPROVAL_HTTP_REQUEST: 'sometimes' })).toMatch(/PARLEY_APPROVAL_HTTP_REQUEST expects always or never/);
    expect(configError({ PARLEY_LOOP_WARN: '5', PARLEY_LOOP_STOP: '4' })).toMatch(
      /PARLEY_LOOP_STOP expects a number greater than PARLEY_LOOP_WARN/,
    );
    expect(configError({ PARLEY_ADMINS: 'justanid' })).toMatch(/PARLEY_ADMINS expects channel:userId entries/);
    expect(configError({ PARLEY_SYSTEM_PROMPT_FILE: '/nonexistent/prompt.md' })).toMatch(
      /PARLEY_SYSTEM_PROMPT_FILE expects a readable file/,
    );
  });

  it('parses durations, lists, overrides and the model settings', () => {
    const config = loadConfig({
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_MODEL: 'qwen2.5',
      PARLEY_APPROVAL_TTL: '90s',
      PARLEY_TOOL_TIMEOUT: '500ms',
      PARLEY_ADMINS: 'telegram:1, discord:2',
      PARLEY_APPROVAL_HTTP_REQUEST: 'Always',
      DATABASE_URL: 'postgresql://parley:secret@localhost:5432/parley',
    });
    expect(config.model).toMatchObject({ configured: true, model: 'qwen2.5' });
    expect(config.approvals).toMatchObject({ ttlMs: 90_000, admins: ['telegram:1', 'discord:2'], overrides: { http_request: 'always' } });
    expect(config.agent.toolTimeoutMs).toBe(500);
    expect(config.database.provider).toBe('postgresql');
  });
});

describe('media configuration', () => {
  const base = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'm', OPENAI_API_KEY: 'chat-key' };

  it('defaults: vision auto, no transcription, 20 MB, 60 s, 6,000 document tokens, 4 images, 7 days', () => {
    expect(loadConfig(base).media).toEqual({
      vision: 'auto',
      transcribe: undefined,
      maxBytes: 20_000_000,
      timeoutMs: 60_000,
      documentTokens: 6_000,
      imagesInContext: 4,
      cacheMaxAgeMs: 7 * 86_400_000,
    });
  });

  it('transcription uses the chat model server and key unless given its own', () => {
    expect(loadConfig({ ...base, OPENAI_TRANSCRIBE_MODEL: 'whisper-1' }).media.transcribe).toEqual({
      model: 'whisper-1',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'chat-key',
    });
    expect(
      loadConfig({
        ...base,
        OPENAI_TRANSCRIBE_MODEL: 'whisper-1',
        OPENAI_TRANSCRIBE_BASE_URL: 'https://stt.example/v1',
        OPENAI_TRANSCRIBE_API_KEY: 'stt',
      }).media.transcribe,
    ).toEqual({ model: 'whisper-1', baseUrl: 'https://stt.example/v1', apiKey: 'stt' });
  });

  it.each([
    [{ OPENAI_VISION: 'sometimes' }, 'OPENAI_VISION expects one of: auto, on, off'],
    [{ PARLEY_MEDIA_MAX_MB: 'lots' }, 'PARLEY_MEDIA_MAX_MB expects a number from 0.01 to 2000'],
    [{ PARLEY_MEDIA_TIMEOUT: '-1' }, 'PARLEY_MEDIA_TIMEOUT expects a duration'],
    [{ PARLEY_MEDIA_IMAGES_IN_CONTEXT: '99' }, 'PARLEY_MEDIA_IMAGES_IN_CONTEXT expects a whole number from 0 to 50'],
    [{ OPENAI_TRANSCRIBE_BASE_URL: 'ftp://x' }, 'OPENAI_TRANSCRIBE_BASE_URL expects an http:// or https:// URL'],
    [{ OPENAI_TRANSCRIBE_API_KEY: 'k' }, 'OPENAI_TRANSCRIBE_BASE_URL and OPENAI_TRANSCRIBE_API_KEY need OPENAI_TRANSCRIBE_MODEL'],
  ])('%o is refused with one clear line', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('a transcription model with no server to send to is refused', () => {
    expect(() => loadConfig({ OPENAI_TRANSCRIBE_MODEL: 'whisper-1' })).toThrow(
      'OPENAI_TRANSCRIBE_MODEL needs OPENAI_TRANSCRIBE_BASE_URL or OPENAI_BASE_URL',
    );
  });
});
