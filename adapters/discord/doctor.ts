// `parley doctor`'s Discord checks, through discord.js's REST client against the configured API
// root: the token (GET /users/@me), the Message Content intent as the application's flags show it
// (GET /applications/@me), and the slash commands registered (GET .../commands). The token never
// appears in what is reported.
import { ApplicationFlags, DiscordAPIError, REST, Routes } from 'discord.js';
import { z } from 'zod';
import { COMMANDS } from '../../src/core/commands.ts';
import { type ChannelDoctor, channelConfig, type DoctorCheck, failureReason, maskSecret, withoutSecrets } from '../../src/core/doctor.ts';
import { slashCommandsOf } from './commands.ts';
import { type DiscordConfig, loadDiscordConfig } from './config.ts';

const AREA = 'discord';
const UserSchema = z.looseObject({ id: z.string(), username: z.string() });
const ApplicationSchema = z.looseObject({ id: z.string(), name: z.string().optional(), flags: z.number().int().optional() });
const CommandListSchema = z.array(z.looseObject({ name: z.string() }));
const MESSAGE_CONTENT = ApplicationFlags.GatewayMessageContent | ApplicationFlags.GatewayMessageContentLimited;

function problem(check: string, error: unknown, token: string): DoctorCheck {
  if (error instanceof DiscordAPIError && error.status === 401) {
    return {
      area: AREA,
      check,
      status: 'problem',
      detail: 'Discord refused the token (401 Unauthorized)',
      fix: 'Developer Portal > your application > Bot > Reset Token, then put it in DISCORD_BOT_TOKEN.',
    };
  }
  const reason = error instanceof DiscordAPIError ? `${error.status} ${error.message}` : failureReason(error);
  return { area: AREA, check, status: 'problem', detail: `Discord answered: ${withoutSecrets(reason, [token])}` };
}

function intentCheck(flags: number): DoctorCheck {
  const check = 'Message Content intent';
  if ((flags & MESSAGE_CONTENT) !== 0) {
    const limited = (flags & ApplicationFlags.GatewayMessageContent) === 0;
    return { area: AREA, check, status: 'ok', detail: limited ? 'enabled (limited: under 100 servers, not verified)' : 'enabled' };
  }
  return {
    area: AREA,
    check,
    status: 'problem',
    detail: 'off: the bot cannot read messages in servers (the gateway refuses it with close code 4014)',
    fix: 'Developer Portal > your application > Bot > Privileged Gateway Intents: turn on Message Content Intent, save.',
  };
}

async function commandsCheck(rest: REST, appId: string, config: DiscordConfig): Promise<DoctorCheck> {
  const where = config.commandsGuild ? `in server ${config.commandsGuild}` : 'global';
  const check = `slash commands (${where})`;
  const route = config.commandsGuild ? Routes.applicationGuildCommands(appId, config.commandsGuild) : Routes.applicationCommands(appId);
  const registered = new Set(CommandListSchema.parse(await rest.get(route)).map((command) => command.name));
  const missing = slashCommandsOf(COMMANDS)
    .map((command) => command.name)
    .filter((name) => !registered.has(name));
  if (missing.length === 0) return { area: AREA, check, status: 'ok', detail: `${registered.size} registered` };
  return {
    area: AREA,
    check,
    status: 'warning',
    detail: registered.size === 0 ? 'none registered yet' : `missing: ${missing.map((name) => `/${name}`).join(', ')}`,
    fix: 'Parley registers them when it starts; global commands can take a while to appear in clients.',
  };
}

export const discordDoctor: ChannelDoctor = {
  kind: AREA,
  async check({ env, timeoutMs }) {
    const loaded = channelConfig(AREA, () => loadDiscordConfig(env));
    if ('problem' in loaded) return [loaded.problem];
    const { config } = loaded;
    if (!config) return [];
    const rest = new REST({ api: config.apiRoot, timeout: timeoutMs, retries: 0 }).setToken(config.token);
    const tokenCheck = `token ${maskSecret(config.token)}`;
    const checks: DoctorCheck[] = [];
    try {
      const me = UserSchema.parse(await rest.get(Routes.user()));
      checks.push({ area: AREA, check: tokenCheck, status: 'ok', detail: `${me.username} (id ${me.id})` });
    } catch (error) {
      return [problem(tokenCheck, error, config.token)];
    }
    let application: z.infer<typeof ApplicationSchema>;
    try {
      application = ApplicationSchema.parse(await rest.get(Routes.currentApplication()));
    } catch (error) {
      return [...checks, problem('application (GET /applications/@me)', error, config.token)];
    }
    checks.push(intentCheck(application.flags ?? 0));
    try {
      checks.push(await commandsCheck(rest, application.id, config));
    } catch (error) {
      checks.push(problem('slash commands', error, config.token));
    }
    return checks;
  },
};
