// Why a channel could not send or edit a message, in words the core can act on: wait and retry
// (rate_limited, transient), send anew (gone: the message to edit no longer exists), or give up
// (forbidden, too_large, fatal). Adapters throw DeliveryError (or a subclass); anything else
// thrown by an adapter is treated as unknown.
import { setTimeout as sleepTimer } from 'node:timers/promises';

export type DeliveryFailureKind = 'rate_limited' | 'transient' | 'gone' | 'forbidden' | 'too_large' | 'fatal';

export class DeliveryError extends Error {
  readonly kind: DeliveryFailureKind;
  /** How long the platform asked us to wait (rate_limited). */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, kind: DeliveryFailureKind, options: { retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export function deliveryFailureOf(error: unknown): { kind: DeliveryFailureKind | 'unknown'; retryAfterMs?: number } {
  if (error instanceof DeliveryError)
    return { kind: error.kind, ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}) };
  return { kind: 'unknown' };
}

/**
 * Exponential backoff with jitter: the `attempt`-th wait (1-based) is base·2^(attempt-1), capped,
 * then scaled by a random factor in [0.75, 1] so that many waiters do not retry in step.
 */
export function backoffMs(attempt: number, options: { baseMs: number; capMs: number }, random: () => number = Math.random): number {
  const exponential = Math.min(options.capMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (1 - random() * 0.25));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleepTimer(ms, undefined, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw signal.reason ?? error;
    throw error;
  }
}
