// Feishu API failures as one error class with a clean one-line message (no token, no secret, no
// request dump), the platform code, and a hint naming the console setting that fixes it.

export type FeishuErrorKind = 'rate_limited' | 'forbidden' | 'gone' | 'too_large' | 'auth' | 'transient' | 'fatal';

export class FeishuApiError extends Error {
  readonly code: number | undefined;
  readonly status: number | undefined;
  readonly kind: FeishuErrorKind;
  constructor(message: string, options: { code?: number; status?: number; kind: FeishuErrorKind }) {
    super(message);
    this.name = 'FeishuApiError';
    this.code = options.code;
    this.status = options.status;
    this.kind = options.kind;
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

export function kindOf(code: number | undefined, status: number | undefined): FeishuErrorKind {
  if (status === 429 || code === 99991400 || code === 230020) return 'rate_limited';
  if (code === 10003 || code === 10014 || code === 99991663 || code === 99991661) return 'auth';
  if (code === 99991672 || code === 99991679 || code === 230002 || code === 230006 || status === 403) return 'forbidden';
  if (code === 230011 || code === 231003 || status === 404) return 'gone';
  if (code === 230025 || code === 230099 || status === 413) return 'too_large';
  if (status === undefined || status >= 500) return 'transient';
  return 'fatal';
}

export function hintFor(code: number | undefined): string | undefined {
  return code === undefined ? undefined : HINTS[code];
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('<redacted>');
  return out;
}

interface AxiosLike {
  message?: unknown;
  response?: { status?: unknown; data?: unknown };
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
  return new FeishuApiError(message, { ...(code !== undefined ? { code } : {}), ...(status !== undefined ? { status } : {}), kind: kindOf(code, status) });
}

/** Checks a `{ code, msg, data }` answer; code 0 is success. */
export function checked<T>(what: string, response: unknown, secrets: readonly string[]): T {
  const { code, msg } = codeAndMsg(response);
  if (code === 0) return ((response as { data?: T }).data ?? ({} as T)) as T;
  throw toFeishuError(what, { response: { status: 200, data: { code: code ?? -1, msg: msg ?? 'unexpected answer' } } }, secrets);
}
