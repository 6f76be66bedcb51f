// The Telegram channel for src/main.ts: on when TELEGRAM_BOT_TOKEN is set.
import type { ChannelFactory } from '../../src/core/types.ts';
import { TelegramAdapter } from './adapter.ts';
import { loadTelegramConfig } from './config.ts';

export const telegramChannel: ChannelFactory = {
  kind: 'telegram',
  fromEnv({ env, log }) {
    const config = loadTelegramConfig(env);
    return config ? new TelegramAdapter({ config, log }) : undefined;
  },
};
