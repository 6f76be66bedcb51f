// Slash commands built from the core's command registry: `<arg>` is a required string option,
// `[arg]` an optional one. Registered globally, or in one guild for instant updates.
import { ApplicationCommandOptionType, type RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import { COMMANDS, type CommandInfo } from '../../src/core/commands.ts';

/** Answers that concern only the caller are ephemeral (the core's registry says which); the rest are visible to the channel. */
export const EPHEMERAL_COMMANDS: ReadonlySet<string> = new Set(COMMANDS.filter((c) => c.ephemeral).map((c) => c.name));

const OPTION_DESCRIPTIONS: Record<string, string> = {
  code: 'The approval code shown in the prompt',
  reason: 'Why (optional)',
  tool: 'Only this tool (default: all)',
};

const ARG = /([<[])([a-z0-9_-]{1,32})[>\]]/g;

export function slashCommandsOf(commands: readonly CommandInfo[]): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  return commands.map((command) => ({
    name: command.name,
    description: command.description.slice(0, 100),
    options: [...(command.args ?? '').matchAll(ARG)].map((match) => ({
      type: ApplicationCommandOptionType.String,
      name: match[2]!,
      description: OPTION_DESCRIPTIONS[match[2]!] ?? match[2]!,
      required: match[1] === '<',
    })),
  }));
}
