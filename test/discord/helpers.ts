// Shared set-up for the Discord suites: the fake Discord (REST + gateway), the real adapter (the
// real discord.js client) configured from environment variables, and the real core on a temp database.
import { COMMANDS } from '../../src/core/commands.ts';
import { pluginCommands } from '../../src/framework/plugin-host.ts';
import type { Plugin } from '../../src/framework/plugin.ts';
import type { AnyTool } from '../../src/agent/tools.ts';
import { DiscordAdapter } from '../../adapters/discord/adapter.ts';
import { loadDiscordConfig } from '../../adapters/discord/config.ts';
import { FakeDiscord, type DChannel, type StoredMessage } from '../fakes/discord/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { createHarness, waitFor, type Harness } from '../helpers/harness.ts';
import { RecordingLogger } from '../telegram/helpers.ts';

export { RecordingLogger };

export interface DiscordSetup {
  dc: FakeDiscord;
  adapter: DiscordAdapter;
  h: Harness;
  model: FakeModelServer;
  log: RecordingLogger;
  close(): Promise<void>;
}

export interface SetupOptions {
  env?: Record<string, string>;
  coreEnv?: Record<string, string>;
  tools?: AnyTool[];
  dc?: FakeDiscord;
  model?: FakeModelServer;
  dbFile?: string;
  /** A project's plugins: their commands become slash commands. */
  plugins?: Plugin[];
}

const open: (() => Promise<void>)[] = [];

export function discordEnv(dc: FakeDiscord, env: Record<string, string> = {}): Record<string, string> {
  return { DISCORD_BOT_TOKEN: dc.token, DISCORD_API_ROOT: dc.apiRoot, DISCORD_EDIT_INTERVAL: '300ms', ...env };
}

export async function startDiscord(options: SetupOptions = {}): Promise<DiscordSetup> {
  const dc = options.dc ?? (await FakeDiscord.start());
  const model = options.model ?? (await FakeModelServer.start());
  const log = new RecordingLogger();
  const config = loadDiscordConfig(discordEnv(dc, options.env));
  if (!config) throw new Error('discord config expected');
  const commands = options.plugins ? { commands: [...COMMANDS, ...pluginCommands(options.plugins)] } : {};
  const adapter = new DiscordAdapter({ config, log, startTimeoutMs: 10_000, ...commands });
  let h: Harness;
  try {
    h = await createHarness({
      adapters: [adapter],
      model,
      ...(options.tools ? { tools: options.tools } : {}),
      ...(options.plugins ? { plugins: options.plugins } : {}),
      ...(options.coreEnv ? { env: options.coreEnv } : {}),
      ...(options.dbFile ? { dbFile: options.dbFile } : {}),
    });
  } catch (error) {
    if (!options.model) await model.close();
    if (!options.dc) await dc.close();
    throw error;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await h.close();
    if (!options.model) await model.close();
    if (!options.dc) await dc.close();
  };
  open.push(close);
  return { dc, adapter, h, model, log, close };
}

export async function closeDiscord(): Promise<void> {
  while (open.length) await open.pop()!().catch(() => {});
}

/** Bot messages in a channel once at least `count` exist. */
export function botMessages(dc: FakeDiscord, channel: DChannel, count = 1): Promise<StoredMessage[]> {
  return waitFor(() => {
    const messages = dc.botMessages(channel);
    return messages.length >= count ? messages : undefined;
  }, `${count} bot message(s) in channel ${channel.id}`);
}

export function sessionKey(channel: DChannel): string {
  return channel.parent_id ? `discord:${channel.parent_id}:${channel.id}` : `discord:${channel.id}`;
}
