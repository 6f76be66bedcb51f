// Freshness of signed webhook requests. A signature never expires and Feishu's own de-duplication
// ends after 7 days, so a captured request could be replayed later and taken again. The signed
// X-Lark-Request-Timestamp (seconds) must be within the window either way of this host's clock.
// Within the window a replay carries an event id already seen and is answered once (the adapter's
// recent event ids; CardClicks' remembered answers).
import type { CoreLogger } from '../../src/core/types.ts';

export const DEFAULT_MAX_AGE_MS = 5 * 60_000;
/** A flood of stale requests is one line per minute, with a count, not one line per request. */
const REPORT_EVERY_MS = 60_000;
const TIMESTAMP = /^\d{1,12}$/;

export class StaleRequests {
  readonly #log: CoreLogger;
  readonly #maxAgeMs: number;
  #lastReport = Number.NEGATIVE_INFINITY;
  #unreported = 0;

  constructor(log: CoreLogger, maxAgeMs: number) {
    this.#log = log;
    this.#maxAgeMs = maxAgeMs;
  }

  /** True when `timestamp` (a signed header) is within the window; otherwise reports the refusal and returns false. */
  fresh(timestamp: string): boolean {
    const now = Date.now();
    const signedAt = TIMESTAMP.test(timestamp) ? Number(timestamp) * 1000 : undefined;
    if (signedAt !== undefined && Math.abs(now - signedAt) <= this.#maxAgeMs) return true;
    this.#report(now, signedAt);
    return false;
  }

  #report(now: number, signedAt: number | undefined): void {
    this.#unreported++;
    if (now - this.#lastReport < REPORT_EVERY_MS) return;
    const count = this.#unreported;
    this.#lastReport = now;
    this.#unreported = 0;
    const window = `${Math.round(this.#maxAgeMs / 1000)} s`;
    const what =
      signedAt === undefined
        ? 'with no valid X-Lark-Request-Timestamp'
        : `stamped ${new Date(signedAt).toISOString()}, ${Math.round((now - signedAt) / 1000)} s off this host's clock`;
    const many = count > 1 ? ` (${count} refused since the last such line)` : '';
    this.#log.warn(
      { refused: count },
      `Feishu webhook: refused a signed request ${what}; only requests signed within ${window} either way are taken (a replayed request, or a clock out of sync: check NTP)${many}`,
    );
  }
}
