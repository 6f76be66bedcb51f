// Slash commands built from the core's one command registry: each argument a string option with
// its own description, required or not as the registry says. Registered globally, or in one
// guild for instant updates. Discord's limits: names 1-32 lower-case characters, descriptions
// 1-100 characters, required options before optional ones.
import { ApplicationCommandOptionType, type RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import { commandNamed, type CommandInfo } from '../../src/core/commands.ts';

const description = (text: string) => (text.length <= 100 ? text : `${text.slice(0, 99)}…`) || '-';

export function slashCommandsOf(commands: readonly CommandInfo[]): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  return commands.map((command) => ({
    name: command.name,
    description: description(command.description),
    options: [...command.arguments]
      .sort((a, b) => Number(b.required) - Number(a.required))
      .map((argument) => ({
        type: ApplicationCommandOptionType.String,
        name: argument.name,
        description: description(argument.description),
        required: argument.required,
      })),
  }));
}

/** Whether the answer to a slash command concerns only the caller (ephemeral), as the registry says. */
export function isEphemeralCommand(name: string): boolean {
  return commandNamed(name)?.ephemeral ?? false;
}
