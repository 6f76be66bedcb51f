// The Telegram channel for src/main.ts: on when TELEGRAM_BOT_TOKEN is set.
import type { ChannelFactory } from '../../src/core/types.ts';
import { loadTelegramConfig } from './config.ts';

export const telegramChannel: ChannelFactory = {
  kind: 'telegram',
  async fromEnv({ env, log, commands }) {
    const config = loadTelegramConfig(env);
    if (!config) return undefined;
    // The SDK loads only when the channel is configured (memory and start-up of every other setup).
    const { TelegramAdapter } = await import('./adapter.ts');
    return new TelegramAdapter({ config, log, ...(commands ? { commands } : {}) });
  },
};
