// The Feishu / Lark channel's settings, read from the environment. The app secret, verification
// token and encrypt key never appear in an error message.
import { z } from 'zod';
import { ConfigError, duration, oneOf, optionalString, parseEnv, stringWithDefault } from '../../src/core/env.ts';
import { DEFAULT_MAX_AGE_MS } from './freshness.ts';

const FEISHU_BASE_URL = 'https://open.feishu.cn';
const LARK_BASE_URL = 'https://open.larksuite.com';

/** `webhook`: POST /feishu/events on the process's one HTTP listener (PARLEY_HTTP_HOST / PARLEY_HTTP_PORT). */
type FeishuMode = { kind: 'ws' } | { kind: 'webhook' };

export interface FeishuConfig {
  appId: string;
  appSecret: string;
  /** Base URL of the open platform (Feishu, Lark, a proxy or a local fake). */
  baseUrl: string;
  /** `feishu`, `lark` or `custom`, for the start-up line and hints. */
  domainName: 'feishu' | 'lark' | 'custom';
  mode: FeishuMode;
  verificationToken: string | undefined;
  encryptKey: string | undefined;
  /** How far a signed webhook request's timestamp may be from this host's clock, either way. */
  webhookMaxAgeMs: number;
  editIntervalMs: { direct: number; group: number };
}

/** The long connection refuses (silently) any other shape: `cli_` and 16 hex digits. */
const APP_ID = /^cli_[0-9a-fA-F]{16}$/;

const FeishuEnvSchema = z.object({
  FEISHU_DOMAIN: stringWithDefault('feishu'),
  FEISHU_MODE: oneOf(['ws', 'webhook'] as const, 'ws'),
  FEISHU_VERIFICATION_TOKEN: optionalString(),
  FEISHU_ENCRYPT_KEY: optionalString(),
  FEISHU_WEBHOOK_MAX_AGE: duration(DEFAULT_MAX_AGE_MS),
  FEISHU_EDIT_INTERVAL_PRIVATE: duration(500),
  FEISHU_EDIT_INTERVAL_GROUP: duration(1_000),
});

function baseUrlOf(domain: string): { baseUrl: string; domainName: FeishuConfig['domainName'] } {
  const lower = domain.toLowerCase();
  if (lower === 'feishu') return { baseUrl: FEISHU_BASE_URL, domainName: 'feishu' };
  if (lower === 'lark') return { baseUrl: LARK_BASE_URL, domainName: 'lark' };
  let url: URL;
  try {
    url = new URL(domain);
  } catch {
    throw new ConfigError(
      `Invalid configuration: FEISHU_DOMAIN expects feishu, lark or an http(s):// base URL (got "${domain.slice(0, 60)}")`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      `Invalid configuration: FEISHU_DOMAIN expects feishu, lark or an http(s):// base URL (got "${domain.slice(0, 60)}")`,
    );
  }
  return { baseUrl: url.toString().replace(/\/+$/, ''), domainName: 'custom' };
}

/** Undefined when neither FEISHU_APP_ID nor FEISHU_APP_SECRET is set (the channel is off). */
export function loadFeishuConfig(env: Record<string, string | undefined>): FeishuConfig | undefined {
  const appId = env.FEISHU_APP_ID?.trim();
  const appSecret = env.FEISHU_APP_SECRET?.trim();
  if (!appId && !appSecret) return undefined;
  if (!appId) throw new ConfigError('Invalid configuration: FEISHU_APP_SECRET is set but FEISHU_APP_ID is missing');
  if (!appSecret) throw new ConfigError('Invalid configuration: FEISHU_APP_ID is set but FEISHU_APP_SECRET is missing (value not shown)');
  if (!APP_ID.test(appId)) {
    throw new ConfigError(
      `Invalid configuration: FEISHU_APP_ID expects the app id from the developer console, like cli_a1b2c3d4e5f6a7b8 (got "${appId.slice(0, 40)}")`,
    );
  }
  for (const old of ['FEISHU_WEBHOOK_HOST', 'FEISHU_WEBHOOK_PORT']) {
    if (env[old]?.trim()) {
      throw new ConfigError(
        `Invalid configuration: ${old} is no longer read; /feishu/events is served on the one HTTP listener, set PARLEY_HTTP_HOST / PARLEY_HTTP_PORT instead`,
      );
    }
  }
  const parsed = parseEnv(FeishuEnvSchema, env);
  const { baseUrl, domainName } = baseUrlOf(parsed.FEISHU_DOMAIN);
  const mode: FeishuMode = { kind: parsed.FEISHU_MODE };
  if (mode.kind === 'webhook' && !parsed.FEISHU_VERIFICATION_TOKEN) {
    throw new ConfigError(
      'Invalid configuration: FEISHU_MODE=webhook needs FEISHU_VERIFICATION_TOKEN (Events and callbacks > Encryption strategy in the developer console)',
    );
  }
  return {
    appId,
    appSecret,
    baseUrl,
    domainName,
    mode,
    verificationToken: parsed.FEISHU_VERIFICATION_TOKEN,
    encryptKey: parsed.FEISHU_ENCRYPT_KEY,
    webhookMaxAgeMs: parsed.FEISHU_WEBHOOK_MAX_AGE,
    editIntervalMs: { direct: parsed.FEISHU_EDIT_INTERVAL_PRIVATE, group: parsed.FEISHU_EDIT_INTERVAL_GROUP },
  };
}
