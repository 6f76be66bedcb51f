// Sending what must not be lost (a turn's final answer, an approval prompt): the work is retried
// while the channel says to wait (rate limited: its retry-after, plus jitter so chats that were
// refused together do not come back together) or fails transiently (exponential backoff with
// jitter), until a time budget runs out. Failures that waiting cannot fix end it at once.
import { backoffMs, deliveryFailureOf, sleep } from '../core/delivery.ts';

export interface PersistOptions {
  /** No new try starts after this long (ms from the first try). */
  budgetMs: number;
  /** Told before each wait. */
  onRetry?: (error: unknown, waitMs: number, attempt: number) => void;
  random?: () => number;
}

export type PersistResult = { ok: true; attempts: number } | { ok: false; attempts: number; error: unknown; permanent: boolean };

/** Errors that are not DeliveryErrors (an adapter that does not classify them) get this many tries. */
const UNKNOWN_TRIES = 3;
const BACKOFF = { baseMs: 1_000, capMs: 15_000 };
/** At most this much is added to a retry-after. */
const RETRY_AFTER_JITTER_MS = 1_000;

export async function persist(work: () => Promise<void>, options: PersistOptions): Promise<PersistResult> {
  const random = options.random ?? Math.random;
  const deadline = Date.now() + options.budgetMs;
  let unknown = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      await work();
      return { ok: true, attempts: attempt };
    } catch (error) {
      const failure = deliveryFailureOf(error);
      const retryable =
        failure.kind === 'rate_limited' || failure.kind === 'transient' || (failure.kind === 'unknown' && ++unknown < UNKNOWN_TRIES);
      if (!retryable) return { ok: false, attempts: attempt, error, permanent: true };
      const wait =
        failure.retryAfterMs !== undefined
          ? failure.retryAfterMs + Math.round(random() * Math.min(RETRY_AFTER_JITTER_MS, failure.retryAfterMs))
          : backoffMs(attempt, BACKOFF, random);
      if (Date.now() + wait > deadline) return { ok: false, attempts: attempt, error, permanent: false };
      options.onRetry?.(error, wait, attempt);
      await sleep(wait);
    }
  }
}
