export * from './config.ts';
export { ConfigError, parseEnv } from '../core/env.ts';
