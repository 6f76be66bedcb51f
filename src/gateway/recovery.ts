// The maintenance sweep, run at start and periodically: expires approvals, continues turns left
// behind by processes that went away, resumes decided turns and drains forgotten mailboxes.
import { errorText } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { ApprovalHandler } from './ports.ts';
import type { SessionScheduler } from './scheduler.ts';
import type { SessionRunner } from './sessions.ts';

export interface RecoveryOptions {
  store: Store;
  scheduler: SessionScheduler;
  sessions: SessionRunner;
  log: Logger;
  approvals?: ApprovalHandler;
}

export class Recovery {
  readonly #o: RecoveryOptions;
  #sweeping: Promise<void> | undefined;
  #lastPrune = 0;

  constructor(options: RecoveryOptions) {
    this.#o = options;
  }

  /** Resolves when the sweep in progress (if any) has finished. */
  idle(): Promise<void> {
    return this.#sweeping ?? Promise.resolve();
  }

  async sweep(): Promise<void> {
    if (this.#sweeping || this.#o.scheduler.stopping) return this.#sweeping;
    this.#sweeping = (async () => {
      const { store, log, sessions, scheduler } = this.#o;
      try {
        await this.#o.approvals?.sweep();
        await this.#pruneDeliveries();
        for (const turn of await store.turns.orphaned()) sessions.kick(turn.sessionId);
        for (const turn of await store.turns.decidedButSuspended()) {
          void scheduler
            .track(sessions.resume(turn.id))
            .catch((error: unknown) => log.error({ err: error, turnId: turn.id }, 'resuming a decided turn failed'));
        }
        for (const sessionId of await store.inbound.sessionsWithQueued()) {
          if (!scheduler.isBusy(sessionId)) sessions.kick(sessionId);
        }
      } catch (error) {
        log.warn({ err: error }, `maintenance sweep failed: ${errorText(error)}`);
      }
    })().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  /** De-duplication records only matter while a platform might re-deliver: keep a week, hourly. */
  async #pruneDeliveries(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastPrune < 3_600_000) return;
    this.#lastPrune = now;
    const removed = await this.#o.store.inbound.prune(new Date(now - 7 * 86_400_000));
    if (removed > 0) this.#o.log.debug({ removed }, 'pruned old delivery records');
  }
}
