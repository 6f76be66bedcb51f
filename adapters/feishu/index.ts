// The Feishu / Lark channel for src/main.ts: on when FEISHU_APP_ID and FEISHU_APP_SECRET are set.
import type { ChannelFactory } from '../../src/core/types.ts';
import { loadFeishuConfig } from './config.ts';

export const feishuChannel: ChannelFactory = {
  kind: 'feishu',
  async fromEnv({ env, log }) {
    const config = loadFeishuConfig(env);
    if (!config) return undefined;
    // The SDK loads only when the channel is configured (memory and start-up of every other setup).
    const { FeishuAdapter } = await import('./adapter.ts');
    return new FeishuAdapter({ config, log });
  },
};
