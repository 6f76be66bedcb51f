// Maintenance, run when something calls for it instead of on a fixed timer: at start, when
// processes went away or the wake-up listener may have missed events (resync), a while after
// work ended here (a turn may have been left for continuing), and at the earliest approval expiry.
// It expires approvals, continues turns left behind by processes that went away, delivers the
// answers they still owed, resumes decided turns and drains forgotten mailboxes.
import type { WakeupEvent, Wakeups } from '../cluster/wakeups.ts';
import { errorText } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import { isDeadOwner, type ThisProcess } from './lease-owner.ts';
import type { Output } from './output.ts';
import type { ApprovalHandler } from './ports.ts';
import type { SessionScheduler } from './scheduler.ts';
import type { SessionRunner } from './sessions.ts';

/** setTimeout's limit; a later expiry is re-armed when this fires. */
const MAX_TIMER_MS = 2_147_483_647;

export interface RecoveryOptions {
  store: Store;
  scheduler: SessionScheduler;
  sessions: SessionRunner;
  output: Output;
  /** Tells which owed answers are this process's own (being delivered here). */
  self: ThisProcess;
  log: Logger;
  approvals?: ApprovalHandler;
  wakeups?: Wakeups;
  /** Delay of the follow-up sweep after work ended here, or after a sweep that found work. */
  followUpMs?: number;
}

export class Recovery {
  readonly #o: RecoveryOptions;
  readonly #followUpMs: number;
  #sweeping: Promise<void> | undefined;
  #again = false;
  #lastPrune = 0;
  #followUp: NodeJS.Timeout | undefined;
  #expiry: { timer: NodeJS.Timeout; at: number } | undefined;
  #unsubscribe: (() => void)[] = [];
  #stopped = false;
  /** Owed answers this process has taken over and is delivering. */
  readonly #redelivering = new Set<string>();

  constructor(options: RecoveryOptions) {
    this.#o = options;
    this.#followUpMs = options.followUpMs ?? 5_000;
  }

  /** Sweeps once, then whenever a wake-up or local activity calls for it. */
  async start(): Promise<void> {
    this.#stopped = false;
    if (this.#o.wakeups) this.#unsubscribe.push(this.#o.wakeups.subscribe((event) => this.#onWakeup(event)));
    this.#unsubscribe.push(this.#o.scheduler.onLeaseEnded(() => this.#scheduleFollowUp()));
    await this.sweep();
  }

  stop(): void {
    this.#stopped = true;
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#unsubscribe = [];
    clearTimeout(this.#followUp);
    this.#followUp = undefined;
    if (this.#expiry) clearTimeout(this.#expiry.timer);
    this.#expiry = undefined;
  }

  /** Resolves when the sweep in progress (if any) has finished. */
  idle(): Promise<void> {
    return this.#sweeping ?? Promise.resolve();
  }

  /** One sweep; asked while one runs, another follows it. */
  sweep(): Promise<void> {
    if (this.#o.scheduler.stopping || this.#stopped) return this.idle();
    if (this.#sweeping) {
      this.#again = true;
      return this.#sweeping;
    }
    this.#sweeping = this.#sweep().finally(() => {
      this.#sweeping = undefined;
      if (this.#again) {
        this.#again = false;
        void this.sweep();
      }
    });
    return this.#sweeping;
  }

  #onWakeup(event: WakeupEvent): void {
    if (event.kind === 'gone' || event.kind === 'resync' || event.kind === 'decided') void this.sweep();
    else if (event.kind === 'approval') this.#armExpiry(event.expiresAt);
  }

  async #sweep(): Promise<void> {
    const { store, log, sessions, scheduler } = this.#o;
    let found = 0;
    try {
      await this.#o.approvals?.sweep();
      await this.#pruneDeliveries();
      for (const turn of await store.turns.orphaned()) {
        found++;
        sessions.kick(turn.sessionId);
      }
      found += await this.#owedAnswers();
      for (const turn of await store.turns.decidedButSuspended()) {
        found++;
        // Decided where no prompt could be edited (or by a process that went away before it did).
        void scheduler
          .track(this.#o.approvals?.showOutcomes?.(turn.id) ?? Promise.resolve())
          .catch((error: unknown) =>
            log.warn({ err: error, turnId: turn.id }, `could not show a decision in its prompt: ${errorText(error)}`),
          );
        void scheduler
          .track(sessions.resume(turn.id))
          .catch((error: unknown) => log.error({ err: error, turnId: turn.id }, 'resuming a decided turn failed'));
      }
      for (const sessionId of await store.inbound.sessionsWithQueued()) {
        if (scheduler.isBusy(sessionId)) continue;
        found++;
        sessions.kick(sessionId);
      }
      if (this.#o.approvals) {
        const next = await store.approvals.nextExpiry();
        if (next) this.#armExpiry(next.getTime());
      }
    } catch (error) {
      found++;
      log.warn({ err: error }, `maintenance sweep failed: ${errorText(error)}`);
    }
    // Work handed off may not get done (a lease held elsewhere, a failing database): look again later.
    if (found > 0) this.#scheduleFollowUp();
  }

  /** Answers owed by processes that are gone (not beating, or dead on this host) are delivered here. */
  async #owedAnswers(): Promise<number> {
    const { store, scheduler, output, self, log } = this.#o;
    const owed = (await store.owedAnswers.list()).filter((o) => o.by !== self.owner && !this.#redelivering.has(o.turnId));
    if (owed.length === 0) return 0;
    const alive = new Set((await store.processes.list()).map((p) => p.owner));
    const gone = owed.filter((o) => !alive.has(o.by) || isDeadOwner(o.by, self));
    for (const answer of gone) {
      this.#redelivering.add(answer.turnId);
      void scheduler
        .track(output.redeliver(answer))
        .catch((error: unknown) => log.error({ err: error, turnId: answer.turnId }, 'delivering an owed answer failed'))
        .finally(() => this.#redelivering.delete(answer.turnId));
    }
    return gone.length;
  }

  #scheduleFollowUp(): void {
    if (this.#stopped || this.#followUp) return;
    this.#followUp = setTimeout(() => {
      this.#followUp = undefined;
      void this.sweep();
    }, this.#followUpMs);
  }

  /** One timer, at the earliest known approval expiry. */
  #armExpiry(at: number): void {
    if (this.#stopped || !this.#o.approvals || (this.#expiry && this.#expiry.at <= at)) return;
    if (this.#expiry) clearTimeout(this.#expiry.timer);
    const delay = Math.min(Math.max(0, at - Date.now()) + 10, MAX_TIMER_MS);
    this.#expiry = {
      at,
      timer: setTimeout(() => {
        this.#expiry = undefined;
        void this.sweep();
      }, delay),
    };
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
