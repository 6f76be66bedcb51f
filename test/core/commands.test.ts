import { describe, expect, it } from 'vitest';
import { commandList, commandNamed, COMMANDS, ENTRY_COMMAND, parseCommand } from '../../src/core/commands.ts';

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
      expect(command.description.length).toBeGreaterThan(0);
      expect(command.description.length).toBeLessThanOrEqual(100);
      for (const argument of command.arguments) expect(argument.description.length).toBeLessThanOrEqual(100);
    }
  });

  it('says which commands the core answers itself and whose answers concern only the caller', () => {
    expect([ENTRY_COMMAND, ...COMMANDS].every((c) => c.control)).toBe(true);
    expect(COMMANDS.filter((c) => c.ephemeral).map((c) => c.name)).toEqual(['help', 'approve', 'deny', 'model']);
    expect(commandNamed('start')).toBe(ENTRY_COMMAND);
    expect(commandNamed(parseCommand('/Deny ABC123 too risky')!.name)?.name).toBe('deny');
    expect(commandNamed('deploy')).toBeUndefined();
  });

  it('lists every command but the entry command for /help', () => {
    expect(commandList().split('\n')).toEqual([
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
