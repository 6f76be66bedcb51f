// The Discord channel for src/main.ts: on when DISCORD_BOT_TOKEN is set.
import type { ChannelFactory } from '../../src/core/types.ts';
import { DiscordAdapter } from './adapter.ts';
import { loadDiscordConfig } from './config.ts';

export const discordChannel: ChannelFactory = {
  kind: 'discord',
  fromEnv({ env, log }) {
    const config = loadDiscordConfig(env);
    return config ? new DiscordAdapter({ config, log }) : undefined;
  },
};
