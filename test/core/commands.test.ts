import { describe, expect, it } from 'vitest';
import {
  argumentDescription,
  commandDescription,
  commandList,
  commandNamed,
  COMMANDS,
  ENTRY_COMMAND,
  parseCommand,
} from '../../src/core/commands.ts';
import { isTextKey, LOCALES } from '../../src/core/i18n/index.ts';

describe('the command registry', () => {
  it('derives each usage from its arguments and fits every platform menu', () => {
    expect(Object.fromEntries(COMMANDS.map((c) => [c.name, c.args ?? '']))).toEqual({
      help: '',
      stop: '',
      reset: '',
      approve: '<code>',
      deny: '<code> [reason]',
      revoke: '[tool]',
      model: '[name]',
    });
    for (const command of [ENTRY_COMMAND, ...COMMANDS]) {
      // Telegram: 1-32 of a-z 0-9 _; descriptions 1-256. Discord: names 1-32, descriptions 1-100.
      expect(command.name).toMatch(/^[a-z0-9_]{1,32}$/);
      for (const locale of LOCALES) {
        expect(commandDescription(command, locale).length).toBeGreaterThan(0);
        expect(commandDescription(command, locale).length).toBeLessThanOrEqual(100);
        for (const argument of command.arguments) expect(argumentDescription(command, argument, locale).length).toBeLessThanOrEqual(100);
      }
    }
  });

  it('has the texts of every command and argument in the catalogue (so every locale has them)', () => {
    const missing = [ENTRY_COMMAND, ...COMMANDS].flatMap((command) => [
      ...(isTextKey(`command.${command.name}`) ? [] : [`command.${command.name}`]),
      ...command.arguments.map((a) => `command.${command.name}.${a.name}`).filter((key) => !isTextKey(key)),
    ]);
    expect(missing).toEqual([]);
  });

  it('says which commands the core answers itself and whose answers concern only the caller', () => {
    expect([ENTRY_COMMAND, ...COMMANDS].every((c) => c.control)).toBe(true);
    expect(COMMANDS.filter((c) => c.ephemeral).map((c) => c.name)).toEqual(['help', 'approve', 'deny', 'model']);
    expect(commandNamed('start')).toBe(ENTRY_COMMAND);
    expect(commandNamed(parseCommand('/Deny ABC123 too risky')!.name)?.name).toBe('deny');
    expect(commandNamed('deploy')).toBeUndefined();
  });

  it('lists every command but the entry command for /help', () => {
    expect(commandList('zh-CN').split('\n')[0]).toBe('- /help：我能做什么，以及怎么和我对话');
    expect(commandList('en').split('\n')).toEqual([
      '- /help: What I can do and how to talk to me',
      '- /stop: Stop the answer in progress',
      '- /reset: Start a fresh conversation',
      '- /approve <code>: Approve a pending tool call by its code',
      '- /deny <code> [reason]: Deny a pending tool call by its code',
      '- /revoke [tool]: Remove "always allow here" grants',
      '- /model [name]: Show or switch the model of this chat (admins)',
    ]);
  });
});
