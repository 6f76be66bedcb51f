// defineConfig({ models, prompt }): checked like the YAML block (shapes by the config schema,
// names and keys when applied), each settable in one place only; the template is checked at start.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { ParleyConfigSchema } from '../../src/framework/config.ts';
import { withProjectModelsAndPrompt } from '../../src/framework/models-and-prompt.ts';
import { tempDir } from '../helpers/harness.ts';

const VARS = { botName: 'B', channel: 'web', chatType: 'group' as const, chatTitle: 'ops', locale: 'en', date: '2026-01-01' };

function apply(options: unknown, env: Record<string, string> = {}, file = '/srv/bot/parley.config.ts') {
  const project = ParleyConfigSchema.parse(options);
  return withProjectModelsAndPrompt(loadConfig(env, tempDir()), { mcpServers: [] }, { config: project, file }, env);
}

const TWO = {
  default: 'main',
  fallback: ['backup'],
  endpoints: {
    main: { baseUrl: 'https://api.example.com/v1', apiKeyEnv: 'MAIN_KEY', model: 'big', timeout: '20s' },
    backup: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'small', capabilities: { tools: false } },
  },
};

describe('models and prompt in defineConfig', () => {
  it('become the models in use, with the key read from its variable and durations in ms', () => {
    const config = apply({ models: TWO }, { MAIN_KEY: 'sk-main' });
    expect(config.models.defaultModel).toBe('main');
    expect(config.models.fallback).toEqual(['backup']);
    expect(config.models.models.map((m) => [m.name, m.config.model, m.config.apiKey, m.config.timeoutMs])).toEqual([
      ['main', 'big', 'sk-main', 20_000],
      ['backup', 'small', undefined, 120_000],
    ]);
  });

  it('a missing key or an unknown name stops start-up with the file named', () => {
    expect(() => apply({ models: TWO })).toThrow(
      'parley.config.ts: the configuration is not valid:\n  - models.endpoints.main.apiKeyEnv: MAIN_KEY is not set in the environment (.env)',
    );
    expect(() => apply({ models: { ...TWO, fallback: ['spare'] } }, { MAIN_KEY: 'k' })).toThrow(
      '  - models.fallback.0: names "spare", which is not a configured model (configured: main, backup)',
    );
    // A wrong shape is the config schema's: reported with the rest of the file's mistakes.
    expect(ParleyConfigSchema.safeParse({ models: { endpoints: { a: { model: 'm', timeout: 'soon' } } } }).error?.issues[0]).toMatchObject({
      path: ['models', 'endpoints', 'a', 'timeout'],
    });
  });

  it('takes the prompt inline or from a file beside the config, checked; and refuses a second prompt or a second models block', () => {
    expect(apply({ prompt: { template: 'Hi from {{ botName }} in {{ chatTitle }}' } }).bot.prompt!.render(VARS)).toBe('Hi from B in ops');
    expect(() => apply({ prompt: { template: '{{ title }}' } })).toThrow(
      'Invalid prompt template: parley.config.ts (prompt.template):1: unknown variable "title"',
    );
    const dir = tempDir();
    writeFileSync(join(dir, 'prompt.liquid'), 'Line one\n{% if chatType == "group" %}{{ chatTitle }}{% endif %}\n');
    expect(apply({ prompt: { file: 'prompt.liquid' } }, {}, join(dir, 'parley.config.ts')).bot.prompt!.render(VARS)).toBe('Line one\nops');
    expect(() => apply({ prompt: { template: 'x' } }, { PARLEY_SYSTEM_PROMPT: 'y' })).toThrow(
      'Invalid configuration: the system prompt is set in PARLEY_SYSTEM_PROMPT(_FILE) and parley.config.ts; keep one',
    );
    const project = ParleyConfigSchema.parse({ models: TWO });
    const fromYaml = { mcpServers: [], path: '/srv/bot/parley.config.yaml', models: loadConfig({}, tempDir()).models };
    expect(() =>
      withProjectModelsAndPrompt(loadConfig({}, tempDir()), fromYaml, { config: project, file: '/srv/bot/parley.config.ts' }, {}),
    ).toThrow('Invalid configuration: models are set in both parley.config.yaml and parley.config.ts; keep one');
  });
});
