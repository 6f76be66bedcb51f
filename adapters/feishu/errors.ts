// Feishu API failures as one error class with a clean one-line message (no token, no secret, no
// request dump), the platform code, and a hint naming the console setting that fixes it. It is a
// DeliveryError, so the core reacts to its kind (wait and retry, send anew, give up) like any channel's.
import { DeliveryError, type DeliveryFailureKind } from '../../src/core/delivery.ts';

/** The delivery kinds, plus `auth`: the app id or secret was refused (a fatal delivery failure). */
type FeishuErrorKind = DeliveryFailureKind | 'auth';

/** Feishu's 429s carry no Retry-After; its gateway names the window's reset in x-ogw-ratelimit-reset (seconds). */
const DEFAULT_RETRY_AFTER_MS = 1_000;

export class FeishuApiError extends DeliveryError {
  readonly code: number | undefined;
  readonly status: number | undefined;
  readonly reason: FeishuErrorKind;
  constructor(message: string, options: { code?: number; status?: number; kind: FeishuErrorKind; retryAfterMs?: number }) {
    const kind = options.kind === 'auth' ? 'fatal' : options.kind;
    const retryAfterMs = kind === 'rate_limited' ? (options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS) : undefined;
    super(message, kind, retryAfterMs === undefined ? {} : { retryAfterMs });
    this.code = options.code;
    this.status = options.status;
    this.reason = options.kind;
  }
}

const HINTS: Record<number, string> = {
  10003: 'check FEISHU_APP_ID',
  10014: 'check FEISHU_APP_SECRET (Credentials & Basic Info in the developer console)',
  99991663: 'the tenant access token was refused; check FEISHU_APP_ID / FEISHU_APP_SECRET',
  99991672: 'enable the missing scope under Permissions & Scopes and publish a new app version',
  99991679: 'enable the missing scope under Permissions & Scopes and publish a new app version',
  230002: 'the bot is not in this chat (add it to the group)',
  230006: 'enable the Bot capability (Features > Bot) and publish a new app version',
  230099: 'the card was refused; check its size (under 30 KB) and shape',
  230025: 'the message is too long',
};

function kindOf(code: number | undefined, status: number | undefined, msg = ''): FeishuErrorKind {
  if (status === 429 || code === 99991400 || code === 230020) return 'rate_limited';
  if (code === 10003 || code === 10014 || code === 99991663 || code === 99991661) return 'auth';
  if (code === 99991672 || code === 99991679 || code === 230002 || code === 230006 || status === 403) return 'forbidden';
  if (code === 230011 || code === 231003 || status === 404) return 'gone';
  // 230099 is any refused card; only its message tells a size problem from a malformed card.
  if (code === 230025 || status === 413 || (code === 230099 && /\b(30 ?KB|too (large|long)|size|length)\b/i.test(msg))) return 'too_large';
  if (status === undefined || status >= 500) return 'transient';
  return 'fatal';
}

function hintFor(code: number | undefined): string | undefined {
  return code === undefined ? undefined : HINTS[code];
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('<redacted>');
  return out;
}

interface AxiosLike {
  message?: unknown;
  code?: unknown;
  response?: { status?: unknown; data?: unknown; headers?: unknown };
}

function retryAfterMsOf(headers: unknown): number | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const reset = Number((headers as Record<string, unknown>)['x-ogw-ratelimit-reset']);
  return Number.isFinite(reset) && reset > 0 ? Math.min(reset, 3_600) * 1000 : undefined;
}

function codeAndMsg(data: unknown): { code?: number; msg?: string } {
  if (typeof data !== 'object' || data === null) return {};
  const record = data as Record<string, unknown>;
  return {
    ...(typeof record.code === 'number' ? { code: record.code } : {}),
    ...(typeof record.msg === 'string' ? { msg: record.msg } : {}),
  };
}

/** A failed SDK call (axios error, token error, or a `{ code != 0 }` body) as FeishuApiError. */
export function toFeishuError(what: string, error: unknown, secrets: readonly string[]): FeishuApiError {
  if (error instanceof FeishuApiError) return error;
  const axios = (typeof error === 'object' && error !== null ? error : {}) as AxiosLike;
  const status = typeof axios.response?.status === 'number' ? axios.response.status : undefined;
  let { code, msg } = codeAndMsg(axios.response?.data);
  const text = error instanceof Error ? error.message : String(error);
  // The SDK's token manager throws "failed to get tenant_access_token, code: 10014, msg: ...".
  const token = /code: (\d+), msg: (.*)$/.exec(text);
  if (code === undefined && token) {
    code = Number(token[1]);
    msg = token[2];
  }
  const hint = hintFor(code);
  const detail = code !== undefined ? `code ${code} ${msg ?? ''}`.trim() : status !== undefined ? `HTTP ${status}` : text;
  const message = redact(`Feishu ${what} failed: ${detail}${hint ? ` (${hint})` : ''}`, secrets);
  const retryAfterMs = retryAfterMsOf(axios.response?.headers);
  return new FeishuApiError(message, {
    ...(code !== undefined ? { code } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    kind: kindOf(code, status, msg),
  });
}

/** Checks a `{ code, msg, data }` answer; code 0 is success. */
export function checked<T>(what: string, response: unknown, secrets: readonly string[]): T {
  const { code, msg } = codeAndMsg(response);
  if (code === 0) return ((response as { data?: T }).data ?? ({} as T)) as T;
  throw toFeishuError(what, { response: { status: 200, data: { code: code ?? -1, msg: msg ?? 'unexpected answer' } } }, secrets);
}

/** A message event the core could not take yet (its database is out of reach): Feishu is to push it again. */
export class EventNotTaken extends Error {}
