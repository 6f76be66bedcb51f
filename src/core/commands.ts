// The one registry of chat commands every channel understands: it feeds /help, Telegram's command
// menu (setMyCommands) and Discord's slash commands, and tells the core which commands it answers
// itself (control) and whose answers concern only the caller (ephemeral where the platform can).

interface CommandArgument {
  name: string;
  required: boolean;
  description: string;
}

export interface CommandInfo {
  name: string;
  description: string;
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

const CODE: CommandArgument = { name: 'code', required: true, description: 'The approval code shown in the prompt' };

/** What people can type, in the order menus and /help show them. */
export const COMMANDS: readonly CommandInfo[] = [
  command({ name: 'help', description: 'What I can do and how to talk to me', arguments: [], control: true, ephemeral: true }),
  command({ name: 'stop', description: 'Stop the answer in progress', arguments: [], control: true, ephemeral: false }),
  command({ name: 'reset', description: 'Start a fresh conversation', arguments: [], control: true, ephemeral: false }),
  command({ name: 'approve', description: 'Approve a pending tool call by its code', arguments: [CODE], control: true, ephemeral: true }),
  command({
    name: 'deny',
    description: 'Deny a pending tool call by its code',
    arguments: [CODE, { name: 'reason', required: false, description: 'Why (optional)' }],
    control: true,
    ephemeral: true,
  }),
  command({
    name: 'revoke',
    description: 'Remove "always allow here" grants',
    arguments: [{ name: 'tool', required: false, description: 'Only this tool (default: all)' }],
    control: true,
    ephemeral: false,
  }),
  command({
    name: 'model',
    description: 'Show or switch the model of this chat (admins)',
    arguments: [{ name: 'name', required: false, description: 'The model to use here, or reset' }],
    control: true,
    ephemeral: true,
  }),
];

/** The command a platform sends when someone opens a chat with the bot (Telegram's /start): /help by another name. */
export const ENTRY_COMMAND: CommandInfo = command({
  name: 'start',
  description: 'Start talking to me',
  arguments: [],
  control: true,
  ephemeral: true,
});

/** The registry entry for a command name (the entry command included), if any. */
export function commandNamed(name: string): CommandInfo | undefined {
  return name === ENTRY_COMMAND.name ? ENTRY_COMMAND : COMMANDS.find((c) => c.name === name);
}

/** One line per command (Parley's, or those and a project's own), for /help. */
export function commandList(commands: readonly CommandInfo[] = COMMANDS): string {
  return commands.map((c) => `- /${c.name}${c.args ? ` ${c.args}` : ''}: ${c.description}`).join('\n');
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
