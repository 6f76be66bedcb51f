// The `models:` block of parley.config.yaml: named endpoints with their key from a named variable,
// capabilities and timeouts; the OPENAI_* model kept as "default"; and each mistake reported on
// its own line with the file and line number.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the configuration file's own syntax, written literally
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { loadFileConfig } from '../../src/config-file/load.ts';
import { ConfigError } from '../../src/core/env.ts';
import { tempDir } from '../helpers/harness.ts';

function write(text: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'parley.config.yaml'), text);
  return dir;
}

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

const OPENAI = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'env-model', OPENAI_TIMEOUT: '45s' };

describe('models in parley.config.yaml', () => {
  it('reads the endpoints, with the OPENAI_* model among them as "default"', () => {
    const dir = write(
      [
        'models:',
        '  default: main',
        '  fallback: [local, default]',
        '  channels: { discord: local }',
        '  endpoints:',
        '    main:',
        '      baseUrl: https://api.deepseek.com/v1',
        '      apiKeyEnv: DEEPSEEK_API_KEY',
        '      model: deepseek-chat',
        '      capabilities: { reasoning: true }',
        '      timeout: 90s',
        '      retryBudget: 30s',
        '      maxRetries: 1',
        '    local:',
        '      baseUrl: http://127.0.0.1:11434/v1',
        '      model: qwen2.5',
        '      capabilities: { tools: false, vision: true }',
        '',
      ].join('\n'),
    );
    const { models } = loadFileConfig({ ...OPENAI, DEEPSEEK_API_KEY: 'sk-deep' }, dir);
    expect(models).toEqual({
      defaultModel: 'main',
      fallback: ['local', 'default'],
      channels: { discord: 'local' },
      models: [
        {
          name: 'default',
          config: expect.objectContaining({ model: 'env-model', baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 45_000 }),
          capabilities: { tools: true, vision: false, reasoning: false },
        },
        {
          name: 'main',
          apiKeyEnv: 'DEEPSEEK_API_KEY',
          config: expect.objectContaining({
            configured: true,
            model: 'deepseek-chat',
            baseUrl: 'https://api.deepseek.com/v1',
            apiKey: 'sk-deep',
            timeoutMs: 90_000,
            retryBudgetMs: 30_000,
            maxRetries: 1,
          }),
          capabilities: { tools: true, vision: false, reasoning: true },
        },
        {
          name: 'local',
          // What an endpoint does not set comes from the OPENAI_* settings (45 s) or their defaults.
          config: expect.objectContaining({ model: 'qwen2.5', timeoutMs: 45_000, maxRetries: 3, retryBudgetMs: 120_000 }),
          capabilities: { tools: false, vision: true, reasoning: false },
        },
      ],
    });
  });

  it('without a models block, the OPENAI_* model is the only one and the default', () => {
    const config = loadConfig({ ...OPENAI }, tempDir());
    expect(config.models).toMatchObject({ defaultModel: 'default', fallback: [], channels: {} });
    expect(config.models.models.map((m) => [m.name, m.config.model])).toEqual([['default', 'env-model']]);
    expect(loadConfig({}, tempDir()).models).toEqual({ models: [], fallback: [], channels: {} });
  });

  it('the first endpoint is the default when none is named', () => {
    const dir = write('models:\n  endpoints:\n    a: { baseUrl: "http://127.0.0.1:1/v1", model: m }\n');
    expect(loadFileConfig({}, dir).models).toMatchObject({ defaultModel: 'a', fallback: [] });
  });

  it('reports every mistake on its own line, with the file and the line', () => {
    const dir = write(
      [
        'models:', // 1
        '  default: nowhere', // 2
        '  fallback: [main, ghost]', // 3
        '  endpoints:', // 4
        '    main:', // 5
        '      baseUrl: ftp://example.com', // 6
        '      model: m', // 7
        '    keyed:', // 8
        '      apiKeyEnv: MISSING_KEY', // 9
        '      model: m', // 10
        '    default:', // 11
        '      baseUrl: http://127.0.0.1:1/v1', // 12
        '      model: m', // 13
        '    reset:', // 14
        '      baseUrl: http://127.0.0.1:1/v1', // 15
        '      model: m', // 16
        '    odd:', // 17
        '      baseUrl: http://127.0.0.1:1/v1', // 18
        '      model: m', // 19
        '      temprature: 1', // 20
        '',
      ].join('\n'),
    );
    const message = errorOf(() => loadFileConfig({ ...OPENAI }, dir));
    expect(message.split('\n')).toEqual([
      'Invalid configuration in parley.config.yaml (1 mistake):',
      '  parley.config.yaml:20: models.endpoints.odd.temprature: unknown key (expected one of: baseUrl, apiKeyEnv, model, capabilities, timeout, retryBudget, maxRetries, temperature, streamUsage)',
    ]);
    // Names are checked once the shapes are right: then each wrong one is a line of its own.
    const fixed = write(
      [
        'models:', // 1
        '  default: nowhere', // 2
        '  fallback: [main, ghost]', // 3
        '  endpoints:', // 4
        '    main:', // 5
        '      baseUrl: ftp://example.com', // 6
        '      model: m', // 7
        '    keyed:', // 8
        '      apiKeyEnv: MISSING_KEY', // 9
        '      model: m', // 10
        '    default:', // 11
        '      baseUrl: http://127.0.0.1:1/v1', // 12
        '      model: m', // 13
        '    reset:', // 14
        '      baseUrl: http://127.0.0.1:1/v1', // 15
        '      model: m', // 16
        '',
      ].join('\n'),
    );
    expect(errorOf(() => loadFileConfig({ ...OPENAI }, fixed)).split('\n')).toEqual([
      'Invalid configuration in parley.config.yaml (6 mistakes):',
      '  parley.config.yaml:2: models.default: names "nowhere", which is not a configured model (configured: default, main, keyed, reset)',
      '  parley.config.yaml:3: models.fallback[1]: names "ghost", which is not a configured model (configured: default, main, keyed, reset)',
      '  parley.config.yaml:6: models.endpoints.main.baseUrl: expects an http:// or https:// URL (got "ftp://example.com")',
      '  parley.config.yaml:9: models.endpoints.keyed.apiKeyEnv: MISSING_KEY is not set in the environment (.env)',
      '  parley.config.yaml:11: models.endpoints.default: "default" is the model of the OPENAI_* variables; name this one differently',
      '  parley.config.yaml:14: models.endpoints.reset: model names are 1-32 letters, digits, ".", "_" or "-" (and not "reset")',
    ]);
  });

  it('reads ${VAR} and ${VAR:-default} in baseUrl and model from the environment', () => {
    const dir = write(
      [
        'models:',
        '  endpoints:',
        '    a:',
        '      baseUrl: "${A_URL:-http://127.0.0.1:11434/v1}"',
        '      model: "${A_MODEL}"',
        '    b:',
        '      baseUrl: "${B_URL}"',
        '      model: m',
        '',
      ].join('\n'),
    );
    expect(errorOf(() => loadFileConfig({ B_URL: 'http://b.example/v1' }, dir))).toContain(
      'parley.config.yaml:5: models.endpoints.a.model: uses ${A_MODEL}, which is not set in the environment',
    );
    const { models } = loadFileConfig({ A_MODEL: 'qwen3:8b', B_URL: 'http://b.example/v1' }, dir);
    expect(models!.models.map((m) => [m.name, m.config.baseUrl, m.config.model])).toEqual([
      ['a', 'http://127.0.0.1:11434/v1', 'qwen3:8b'],
      ['b', 'http://b.example/v1', 'm'],
    ]);
  });

  it('refuses a key written where the name of its variable belongs', () => {
    const dir = write('models:\n  endpoints:\n    a:\n      apiKeyEnv: sk-live-1234\n      model: m\n');
    expect(errorOf(() => loadFileConfig({}, dir))).toContain(
      'parley.config.yaml:4: models.endpoints.a.apiKeyEnv: expects the name of an environment variable (letters, digits, _), not the key itself',
    );
  });
});
