// When and how long to wait before asking the model again. A model server that says it is busy
// (429, 503, 529, or any answer carrying Retry-After) is waited out, as it asks, for as long as the
// time budget allows: an outage of a minute should delay answers, not fail them. Other transient
// failures (5xx, connection errors, timeouts) are retried at most `maxRetries` times within the
// same budget, with exponential backoff and jitter. Nothing is retried once the answer has started
// streaming (the chat already shows part of it).
import * as OpenAI from 'openai/core/error';
import { backoffMs } from '../core/delivery.ts';
import { LlmError } from './errors.ts';

export interface RetryPolicy {
  /** No retry starts later than this after the first attempt started (ms). */
  budgetMs: number;
  /** Retries of failures that are not "busy" answers. */
  maxRetries: number;
}

export type RetryVerdict = { retry: false } | { retry: true; busy: boolean; retryAfterMs?: number; status?: number };

const BUSY_STATUSES = new Set([429, 503, 529]);
const BACKOFF = { baseMs: 500, capMs: 30_000 };

/** Retry-After as the server sent it: `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const raw = headers?.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1_000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Whether a failed attempt (an LlmError from the client) is worth another one. */
export function retryVerdict(error: unknown): RetryVerdict {
  if (!(error instanceof LlmError) || error.kind === 'aborted') return { retry: false };
  if (error.kind === 'timeout') return { retry: true, busy: false };
  const cause = error.cause;
  if (cause instanceof OpenAI.APIConnectionError) return { retry: true, busy: false };
  if (!(cause instanceof OpenAI.APIError) || cause.status === undefined) return { retry: false };
  const status = cause.status;
  const headers = cause.headers instanceof Headers ? cause.headers : undefined;
  const told = headers?.get('x-should-retry');
  const after = retryAfterMs(headers);
  const busy = BUSY_STATUSES.has(status) || after !== undefined;
  const transient = busy || status === 408 || status === 409 || status >= 500;
  if (told === 'false' || (!transient && told !== 'true')) return { retry: false };
  return { retry: true, busy, status, ...(after !== undefined ? { retryAfterMs: after } : {}) };
}

export interface RetryState {
  startedAt: number;
  /** Retries of non-busy failures so far. */
  transientRetries: number;
}

/** How long to wait before attempt `attempt + 1`, or undefined to give up. */
export function nextWait(
  verdict: RetryVerdict,
  attempt: number,
  state: RetryState,
  policy: RetryPolicy,
  now = Date.now(),
): number | undefined {
  if (!verdict.retry) return undefined;
  if (!verdict.busy && state.transientRetries >= policy.maxRetries) return undefined;
  const wait = verdict.retryAfterMs ?? backoffMs(attempt, BACKOFF);
  if (now + wait - state.startedAt > policy.budgetMs) return undefined;
  if (!verdict.busy) state.transientRetries++;
  return wait;
}
