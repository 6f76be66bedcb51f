import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEphemeralCommand, slashCommandsOf } from '../../adapters/discord/commands.ts';
import { loadDiscordConfig } from '../../adapters/discord/config.ts';
import { bodyOf, componentsOf } from '../../adapters/discord/render.ts';
import { argumentDescription, COMMANDS, commandDescription } from '../../src/core/commands.ts';
import { ConfigError } from '../../src/core/env.ts';

const TOKEN = `${Buffer.from('1234567890123456789').toString('base64url')}.GabcdE.${'y'.repeat(27)}`;

describe('discord: configuration', () => {
  it('is off without a token and reads every variable', () => {
    expect(loadDiscordConfig({})).toBeUndefined();
    const config = loadDiscordConfig({
      DISCORD_BOT_TOKEN: TOKEN,
      DISCORD_API_ROOT: 'http://127.0.0.1:9/api/',
      DISCORD_ALLOWED_GUILDS: '123456789012345678, 223456789012345678',
      DISCORD_COMMANDS_GUILD: '123456789012345678',
      DISCORD_EDIT_INTERVAL: '2s',
    })!;
    expect(config.apiRoot).toBe('http://127.0.0.1:9/api');
    expect([...config.allowedGuilds]).toEqual(['123456789012345678', '223456789012345678']);
    expect(config.commandsGuild).toBe('123456789012345678');
    expect(config.editIntervalMs).toEqual({ direct: 2000, group: 2000 });
    expect(loadDiscordConfig({ DISCORD_BOT_TOKEN: TOKEN })!.apiRoot).toBe('https://discord.com/api');
  });

  it('refuses bad values with one line that never repeats the token', () => {
    const bad = `${TOKEN.slice(0, 10)} not a token`;
    const error = (() => {
      try {
        loadDiscordConfig({ DISCORD_BOT_TOKEN: bad });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/DISCORD_BOT_TOKEN.*Developer Portal/);
    expect((error as Error).message).not.toContain(bad);
    expect(() => loadDiscordConfig({ DISCORD_BOT_TOKEN: TOKEN, DISCORD_ALLOWED_USERS: 'alice' })).toThrow(/DISCORD_ALLOWED_USERS/);
    expect(() => loadDiscordConfig({ DISCORD_BOT_TOKEN: TOKEN, DISCORD_API_ROOT: 'ftp://x' })).toThrow(/DISCORD_API_ROOT/);
    expect(() => loadDiscordConfig({ DISCORD_BOT_TOKEN: TOKEN, DISCORD_COMMANDS_GUILD: 'general' })).toThrow(/DISCORD_COMMANDS_GUILD/);
  });
});

describe('discord: rendering', () => {
  it('keeps Markdown, never pings, replies by reference, and maps button styles', () => {
    const body = bodyOf({
      text: '**bold** @everyone `code`',
      replyToMessageId: '123',
      buttons: [
        [
          { label: 'Approve', payload: 'a1', style: 'primary' },
          { label: 'Deny', payload: 'd1', style: 'danger' },
          { label: 'Always', payload: 'x1' },
        ],
      ],
    });
    expect(body.content).toBe('**bold** @everyone `code`');
    expect(body.allowed_mentions).toEqual({ parse: [], replied_user: false });
    expect(body.message_reference).toEqual({ message_id: '123', fail_if_not_exists: false });
    expect(body.components![0]!.components.map((c) => c.style)).toEqual([1, 4, 2]);
  });

  it('on edit: undefined buttons keep the components, [] removes them', () => {
    expect('components' in bodyOf({ text: 'x' }, true)).toBe(false);
    expect(bodyOf({ text: 'x', buttons: [] }, true).components).toEqual([]);
    expect('message_reference' in bodyOf({ text: 'x', replyToMessageId: '1' }, true)).toBe(false);
  });

  it('stays within Discord component limits for any button grid', () => {
    const button = fc.record({ label: fc.string({ minLength: 1, maxLength: 200 }), payload: fc.string({ minLength: 1, maxLength: 64 }) });
    fc.assert(
      fc.property(fc.array(fc.array(button, { maxLength: 9 }), { maxLength: 9 }), (grid) => {
        const rows = componentsOf(grid);
        expect(rows.length).toBeLessThanOrEqual(5);
        for (const row of rows) {
          expect(row.components.length).toBeGreaterThan(0);
          expect(row.components.length).toBeLessThanOrEqual(5);
          for (const c of row.components) expect(c.label!.length).toBeLessThanOrEqual(80);
        }
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});

describe('discord: slash commands from the registry', () => {
  it('one string option per registry argument, with its description and requiredness', () => {
    const commands = slashCommandsOf(COMMANDS);
    expect(commands.map((c) => c.name)).toEqual(COMMANDS.map((c) => c.name));
    for (const command of COMMANDS) {
      const slash = commands.find((c) => c.name === command.name)!;
      expect(slash.description).toBe(commandDescription(command, 'en'));
      expect(slash.description_localizations).toEqual({ 'zh-CN': commandDescription(command, 'zh-CN') });
      expect(slash.options).toEqual(
        command.arguments.map((a) => ({
          type: 3,
          name: a.name,
          description: argumentDescription(command, a, 'en'),
          description_localizations: { 'zh-CN': argumentDescription(command, a, 'zh-CN') },
          required: a.required,
        })),
      );
    }
    expect(commands.find((c) => c.name === 'deny')!.options!.map((o) => o.name)).toEqual(['code', 'reason']);
  });

  it('keeps to Discord limits for any registry: descriptions 1-100 characters, required options first', () => {
    const argument = fc.record({
      name: fc.constantFrom('code', 'reason', 'tool', 'who'),
      required: fc.boolean(),
      description: fc.string({ maxLength: 300 }),
    });
    fc.assert(
      fc.property(fc.array(argument, { maxLength: 4 }), fc.string({ maxLength: 300 }), (args, text) => {
        const [slash] = slashCommandsOf([{ name: 'cmd', description: text, arguments: args, control: true, ephemeral: false }]);
        const lengths = [slash!.description, ...(slash!.options ?? []).map((o) => o.description)].map((d) => d.length);
        for (const length of lengths) expect(length >= 1 && length <= 100).toBe(true);
        const required = (slash!.options ?? []).map((o) => ('required' in o ? o.required === true : false));
        expect(required).toEqual([...required].sort((a, b) => Number(b) - Number(a)));
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('answers concern only the caller where the registry says so', () => {
    expect(COMMANDS.filter((c) => isEphemeralCommand(c.name)).map((c) => c.name)).toEqual(
      COMMANDS.filter((c) => c.ephemeral).map((c) => c.name),
    );
    expect(isEphemeralCommand('no-such-command')).toBe(false);
  });
});
