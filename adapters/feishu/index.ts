// The Feishu / Lark channel for src/main.ts: on when FEISHU_APP_ID and FEISHU_APP_SECRET are set.
import type { ChannelFactory } from '../../src/core/types.ts';
import { FeishuAdapter } from './adapter.ts';
import { loadFeishuConfig } from './config.ts';

export const feishuChannel: ChannelFactory = {
  kind: 'feishu',
  fromEnv({ env, log }) {
    const config = loadFeishuConfig(env);
    return config ? new FeishuAdapter({ config, log }) : undefined;
  },
};
