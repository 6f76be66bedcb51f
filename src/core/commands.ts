// The one registry of chat commands every channel understands: it feeds /help, Telegram's command
// menu (setMyCommands) and Discord's slash commands, and tells the core which commands it answers
// itself (control) and whose answers concern only the caller (ephemeral where the platform can).
// Descriptions come from the text catalogue (`command.<name>`, `command.<name>.<argument>`), in
// every locale; `description` here is only for a command the catalogue has no text for.
import { isTextKey, type Locale, t, textOf } from './i18n/index.ts';

interface CommandArgument {
  name: string;
  required: boolean;
  /** English, for an argument the catalogue has no `command.<name>.<argument>` text for. */
  description?: string;
}

export interface CommandInfo {
  name: string;
  /** English, for a command the catalogue has no `command.<name>` text for. */
  description?: string;
  arguments: readonly CommandArgument[];
  /** Usage after the name, `<required> [optional]` (e.g. "<code> [reason]"); derived from `arguments`. */
  args?: string;
  /** Answered by the core without a model turn. */
  control: boolean;
  /** The answer concerns only the caller (an ephemeral reply where the platform has one). */
  ephemeral: boolean;
}

function command(info: Omit<CommandInfo, 'args'>): CommandInfo {
  const args = info.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ');
  return { ...info, ...(args ? { args } : {}) };
}

const CODE: CommandArgument = { name: 'code', required: true };

/** What people can type, in the order menus and /help show them. */
export const COMMANDS: readonly CommandInfo[] = [
  command({ name: 'help', arguments: [], control: true, ephemeral: true }),
  command({ name: 'stop', arguments: [], control: true, ephemeral: false }),
  command({ name: 'reset', arguments: [], control: true, ephemeral: false }),
  command({ name: 'approve', arguments: [CODE], control: true, ephemeral: true }),
  command({ name: 'deny', arguments: [CODE, { name: 'reason', required: false }], control: true, ephemeral: true }),
  command({ name: 'revoke', arguments: [{ name: 'tool', required: false }], control: true, ephemeral: false }),
  command({ name: 'model', arguments: [{ name: 'name', required: false }], control: true, ephemeral: true }),
];

/** The command a platform sends when someone opens a chat with the bot (Telegram's /start): /help by another name. */
export const ENTRY_COMMAND: CommandInfo = command({
  name: 'start',
  arguments: [],
  control: true,
  ephemeral: true,
});

/** The registry entry for a command name (the entry command included), if any. */
export function commandNamed(name: string): CommandInfo | undefined {
  return name === ENTRY_COMMAND.name ? ENTRY_COMMAND : COMMANDS.find((c) => c.name === name);
}

/** A command's description in `locale` (the catalogue's, else its own English one, else its name). */
export function commandDescription(command: CommandInfo, locale: Locale): string {
  const key = `command.${command.name}`;
  return isTextKey(key) ? textOf(locale, key) : (command.description ?? command.name);
}

/** An argument's description in `locale`, the same way. */
export function argumentDescription(command: CommandInfo, argument: CommandArgument, locale: Locale): string {
  const key = `command.${command.name}.${argument.name}`;
  return isTextKey(key) ? textOf(locale, key) : (argument.description ?? argument.name);
}

/** One line per command (Parley's, or those and a project's own), for /help. */
export function commandList(locale: Locale, commands: readonly CommandInfo[] = COMMANDS): string {
  return commands
    .map((c) => t(locale, 'help.line', { command: c.name, args: c.args ? ` ${c.args}` : '', description: commandDescription(c, locale) }))
    .join('\n');
}

export interface ParsedCommand {
  name: string;
  args: string;
}

/** `/name args` (adapters have already removed any `@botname`). Names are lower-cased. */
export function parseCommand(text: string): ParsedCommand | undefined {
  const match = /^\/([a-zA-Z0-9_]{1,32})(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1]!.toLowerCase(), args: (match[2] ?? '').trim() };
}
