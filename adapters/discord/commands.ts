// Slash commands built from the core's one command registry: each argument a string option with
// its own description, required or not as the registry says. Registered globally, or in one
// guild for instant updates. Discord's limits: names 1-32 lower-case characters, descriptions
// 1-100 characters, required options before optional ones.
import { ApplicationCommandOptionType, type RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import { argumentDescription, commandDescription, commandNamed, type CommandInfo } from '../../src/core/commands.ts';
import { LOCALES, type Locale } from '../../src/core/i18n/index.ts';

const description = (text: string) => (text.length <= 100 ? text : `${text.slice(0, 99)}…`) || '-';

/** Discord's locale for each of ours but English (the default description); Discord's list: zh-CN is Chinese, China. */
const DISCORD_LOCALES: Record<Exclude<Locale, 'en'>, string> = { 'zh-CN': 'zh-CN' };
const TRANSLATED = LOCALES.filter((locale): locale is Exclude<Locale, 'en'> => locale !== 'en');

/** description_localizations: the text in each of our other locales, keyed by Discord's locale. */
function localizations(text: (locale: Locale) => string): Record<string, string> {
  return Object.fromEntries(TRANSLATED.map((locale) => [DISCORD_LOCALES[locale], description(text(locale))]));
}

export function slashCommandsOf(commands: readonly CommandInfo[]): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  return commands.map((command) => ({
    name: command.name,
    description: description(commandDescription(command, 'en')),
    description_localizations: localizations((locale) => commandDescription(command, locale)),
    options: [...command.arguments]
      .sort((a, b) => Number(b.required) - Number(a.required))
      .map((argument) => ({
        type: ApplicationCommandOptionType.String,
        name: argument.name,
        description: description(argumentDescription(command, argument, 'en')),
        description_localizations: localizations((locale) => argumentDescription(command, argument, locale)),
        required: argument.required,
      })),
  }));
}

/** Whether the answer to a slash command concerns only the caller (ephemeral), as the registry says. */
export function isEphemeralCommand(name: string): boolean {
  return commandNamed(name)?.ephemeral ?? false;
}
