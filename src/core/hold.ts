// An inbound message the core cannot take yet (a retryable error: its database is out of reach)
// is held by its adapter and handed over again, with backoff, within a budget and until the
// adapter stops. What the platform is told meanwhile (no confirmation, an error answer) is the
// adapter's business.
import { backoffMs, sleep } from './delivery.ts';
import { isRetryable } from './errors.ts';

const HOLD_BUDGET_MS = 15 * 60_000;
const HOLD_BACKOFF = { baseMs: 1_000, capMs: 15_000 };

/** Runs `take` until it succeeds; throws its error when it is not retryable, the budget is spent or `signal` aborts. */
export async function holdUntilTaken(
  take: () => Promise<void>,
  options: { signal?: AbortSignal | undefined; onWait: (error: unknown, waitMs: number) => void },
): Promise<void> {
  const started = Date.now();
  const { signal } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await take();
    } catch (error) {
      const wait = backoffMs(attempt, HOLD_BACKOFF);
      if (!isRetryable(error) || signal?.aborted || Date.now() + wait - started > HOLD_BUDGET_MS) throw error;
      options.onWait(error, wait);
      await sleep(wait, signal).catch(() => {});
      if (signal?.aborted) throw error;
    }
  }
}
