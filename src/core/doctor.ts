// What `parley doctor` reports, in neutral terms: each check is one line with a verdict, what was
// found and, for a problem, how to fix it. Channels contribute their own checks (adapters/<kind>/
// doctor.ts) through a ChannelDoctor; the CLI never learns what Telegram is.
import { ConfigError } from './env.ts';

/** `problem` makes `parley doctor` exit non-zero; `warning` does not; `skipped` says why nothing was checked. */
export type CheckStatus = 'ok' | 'warning' | 'problem' | 'skipped';

export interface DoctorCheck {
  /** What is checked: "database", "model", "telegram", "mcp", "http"... */
  area: string;
  /** The check, in a few words: "token (getMe)". */
  check: string;
  status: CheckStatus;
  /** What was found, one line; never a secret. */
  detail: string;
  /** For a problem or a warning: what to do about it. */
  fix?: string;
}

interface ChannelDoctorContext {
  env: Record<string, string | undefined>;
  /** How long one request to the platform may take. */
  timeoutMs: number;
}

/** One channel's checks. `check` answers [] when the channel is not configured. */
export interface ChannelDoctor {
  readonly kind: string;
  check(context: ChannelDoctorContext): Promise<DoctorCheck[]>;
}

/**
 * A channel's configuration read by `load` (undefined: the channel is not configured), or the
 * problem a ConfigError in it names, as the check that reports it.
 */
export function channelConfig<T>(area: string, load: () => T | undefined): { config: T | undefined } | { problem: DoctorCheck } {
  try {
    return { config: load() };
  } catch (error) {
    if (error instanceof ConfigError) return { problem: { area, check: 'configuration', status: 'problem', detail: error.message } };
    throw error;
  }
}

/** A secret as it may be printed: its first characters and its length, never the rest. */
export function maskSecret(secret: string, shown = 4): string {
  const keep = secret.length > shown * 3 ? shown : 0;
  return `${secret.slice(0, keep)}…(${secret.length} characters)`;
}

/**
 * The one-line reason a request failed: the network code (ECONNREFUSED, ENOTFOUND) when one of the
 * errors it wraps (`cause`, grammY's `error`, an AggregateError's first) has one, else the
 * innermost message.
 */
export function failureReason(error: unknown): string {
  let current: unknown = error;
  let innermost = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    if (current instanceof Error && (current.name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT')) return 'no answer in time';
    innermost = current;
    const wrapped = current as { cause?: unknown; error?: unknown; errors?: unknown };
    current = wrapped.cause ?? wrapped.error ?? (Array.isArray(wrapped.errors) ? wrapped.errors[0] : undefined);
  }
  const message = innermost instanceof Error ? innermost.message : String(innermost);
  return message.split('\n')[0]!.slice(0, 200);
}

/** Removes every occurrence of the secrets from a text (error messages may echo a URL with a token). */
export function withoutSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 6) out = out.split(secret).join(maskSecret(secret));
  return out;
}
