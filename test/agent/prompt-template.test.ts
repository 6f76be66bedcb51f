// The system prompt's base is a Liquid template: variables (botName, channel, chatType, chatTitle,
// locale, date) and conditionals, rendered for each chat. It is checked when it is read: a syntax
// error, an unknown filter, an unknown variable (even in a branch no chat takes) or a tag that
// would read another file is one line naming the file (or variable) and the line.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { loadFileConfig } from '../../src/config-file/load.ts';
import { ConfigError } from '../../src/core/env.ts';
import { ALICE } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, tempDir } from '../helpers/harness.ts';

afterEach(closeAll);

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

const TEMPLATE = [
  'You are {{ botName }} on {{ channel }}.',
  '{% if chatType == "group" %}Group: {{ chatTitle | default: "unnamed" }}.{% else %}A direct chat.{% endif %}',
  '{% if locale == "zh-CN" %}请用中文。{% endif %}',
].join('\n');

describe('prompt templates', () => {
  it('renders the variables and conditionals for each chat, and ends with the date when the template does not place it', async () => {
    const h = await createHarness({ env: { PARLEY_SYSTEM_PROMPT: TEMPLATE, PARLEY_BOT_NAME: 'Ada' } });
    h.model.enqueue({ text: 'ok' }, { text: 'ok' });
    await h.adapter.say('hi', { from: ALICE });
    await settled(h.store, `memory:dm-${ALICE.id}`);
    await h.adapter.say('hi all', { chatType: 'group', chatTitle: 'Night\nshift', mention: true });
    await settled(h.store, 'memory:group-1');
    const [direct, group] = h.model.requests.map((r) => r.body.messages[0]!.content ?? '');
    expect(direct).toMatch(/^You are Ada on memory\.\nA direct chat\.\n\nYour name is Ada\./);
    // The title is kept on one line.
    expect(group).toMatch(/^You are Ada on memory\.\nGroup: Night shift\.\n\nYour name is Ada\./);
    expect(group).toMatch(/\n\nToday's date: \d{4}-\d{2}-\d{2} \(UTC\)\.$/);
  });

  it('a prompt without tags is the text itself, as before templates', () => {
    const config = loadConfig({ PARLEY_SYSTEM_PROMPT: 'Plain {text} and 100% fine' }, tempDir());
    expect(
      config.bot.prompt?.render({ botName: 'x', channel: 'c', chatType: 'direct', chatTitle: '', locale: 'en', date: '2026-01-01' }),
    ).toBe('Plain {text} and 100% fine');
  });

  it('names the file and the line of each kind of mistake', () => {
    const dir = tempDir();
    const cases: [string, string][] = [
      ['Hello\n{% if chatType == "group" %}\nunclosed', 'prompt.liquid:2: tag {% if chatType == "group" %} not closed'],
      [
        'Hello\n{% if chatType == "group" %}\n  In {{ chatTittle }}\n{% endif %}',
        'prompt.liquid:3: unknown variable "chatTittle" (known: botName, channel, chatType, chatTitle, locale, date)',
      ],
      ['Hi\n\n{{ botName | shout }}', 'prompt.liquid:3: undefined filter: shout'],
      ['Hi {{ botName ', 'prompt.liquid:1: output "{{ botName " not closed'],
      [
        'Hi\n{% include "secrets.txt" %}',
        'prompt.liquid:2: {% include %} is not available in a prompt template (it would read another file)',
      ],
    ];
    for (const [template, line] of cases) {
      writeFileSync(join(dir, 'prompt.liquid'), template);
      expect(errorOf(() => loadConfig({ PARLEY_SYSTEM_PROMPT_FILE: 'prompt.liquid' }, dir))).toBe(`Invalid prompt template: ${line}`);
    }
    expect(errorOf(() => loadConfig({ PARLEY_SYSTEM_PROMPT: 'a\n{{ nope }}' }, dir))).toBe(
      'Invalid prompt template: PARLEY_SYSTEM_PROMPT:2: unknown variable "nope" (known: botName, channel, chatType, chatTitle, locale, date)',
    );
  });

  it('in parley.config.yaml: a template file beside it, or the text inline with the line counted in the YAML file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bot.liquid'), 'You are {{ botName }}.\n{{ wrong }}\n');
    writeFileSync(join(dir, 'parley.config.yaml'), 'prompt:\n  file: bot.liquid\n');
    expect(errorOf(() => loadFileConfig({}, dir))).toBe(
      'Invalid prompt template: bot.liquid:2: unknown variable "wrong" (known: botName, channel, chatType, chatTitle, locale, date)',
    );
    writeFileSync(
      join(dir, 'parley.config.yaml'),
      [
        'mcpServers: {}',
        'prompt:',
        '  template: |',
        '    You are {{ botName }}.',
        '    {% if chatType == "group" %}{{ chatTitle }}{% endif %}',
        '    {{ today }}',
        '',
      ].join('\n'),
    );
    expect(errorOf(() => loadFileConfig({}, dir))).toBe(
      'Invalid prompt template: parley.config.yaml:6: unknown variable "today" (known: botName, channel, chatType, chatTitle, locale, date)',
    );
    writeFileSync(join(dir, 'parley.config.yaml'), 'prompt:\n  template: "You are {{ botName }} on {{ channel }}."\n');
    const prompt = loadFileConfig({}, dir).prompt!;
    expect(prompt.render({ botName: 'B', channel: 'web', chatType: 'group', chatTitle: 't', locale: 'en', date: '2026-01-01' })).toBe(
      'You are B on web.',
    );
    writeFileSync(join(dir, 'parley.config.yaml'), 'prompt:\n  file: a.liquid\n  template: b\n');
    expect(errorOf(() => loadFileConfig({}, dir))).toBe(
      'Invalid configuration in parley.config.yaml (1 mistake):\n  parley.config.yaml:1: prompt: expects { file: prompt.liquid } or { template: "..." } (one of them)',
    );
  });
});
