// The web console channel: on by default (PARLEY_WEB=off turns it off), served at '/' by the
// process's HTTP host (PARLEY_HTTP_HOST / PARLEY_HTTP_PORT, default 127.0.0.1:3000).
import { resolve } from 'node:path';
import type { ChannelFactory } from '../../src/core/types.ts';
import { webConfigFromEnv } from './config.ts';

export { webConfigFromEnv } from './config.ts';

export const webChannel: ChannelFactory = {
  kind: 'web',
  async fromEnv({ env, log, botName, dataDir }) {
    const config = webConfigFromEnv(env);
    if (!config) return undefined;
    const configuredAdmins = (env.PARLEY_ADMINS ?? '').split(',').map((entry) => entry.trim());
    // The console's modules load only when it is on (memory of a bot that runs without it).
    const { WebAdapter } = await import('./adapter.ts');
    return new WebAdapter({ config, botName, log, dataDir: dataDir ?? resolve('data'), configuredAdmins });
  },
};
