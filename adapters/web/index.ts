// The web console channel: on by default (PARLEY_WEB=off turns it off), on 127.0.0.1:3000.
import type { ChannelFactory } from '../../src/core/types.ts';
import { WebAdapter } from './adapter.ts';
import { webConfigFromEnv } from './config.ts';

export { WebAdapter } from './adapter.ts';
export { webConfigFromEnv, type WebConfig } from './config.ts';

export const webChannel: ChannelFactory = {
  name: 'web',
  fromEnv({ env, log, botName }) {
    const config = webConfigFromEnv(env);
    return config ? new WebAdapter({ config, botName, log }) : undefined;
  },
};
