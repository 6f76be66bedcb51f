// The chat commands every channel understands, for menus (Telegram's setMyCommands) and /help.

export interface CommandInfo {
  name: string;
  args?: string;
  description: string;
}

export const COMMANDS: readonly CommandInfo[] = [
  { name: 'help', description: 'What I can do and how to talk to me' },
  { name: 'stop', description: 'Stop the answer in progress' },
  { name: 'reset', description: 'Start a fresh conversation' },
  { name: 'approve', args: '<code>', description: 'Approve a pending tool call by its code' },
  { name: 'deny', args: '<code> [reason]', description: 'Deny a pending tool call by its code' },
  { name: 'revoke', args: '[tool]', description: 'Remove "always allow here" grants' },
];

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
