// The Discord channel for src/main.ts: on when DISCORD_BOT_TOKEN is set.
import type { ChannelFactory } from '../../src/core/types.ts';
import { loadDiscordConfig } from './config.ts';

export const discordChannel: ChannelFactory = {
  kind: 'discord',
  async fromEnv({ env, log, commands }) {
    const config = loadDiscordConfig(env);
    if (!config) return undefined;
    // The SDK loads only when the channel is configured (memory and start-up of every other setup).
    const { DiscordAdapter } = await import('./adapter.ts');
    return new DiscordAdapter({ config, log, ...(commands ? { commands } : {}) });
  },
};
