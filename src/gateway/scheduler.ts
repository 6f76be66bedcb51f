// Exactly one running turn per session, across all processes: work on a session happens only
// while holding its lease (a conditional update in the database). The process heartbeat renews
// all the leases this process holds at once (renewLeases); /stop requests made on other
// processes arrive as wake-ups.
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { ShutdownRequest, StopRequest } from '../agent/abort.ts';
import { DEFAULT_HEARTBEAT_MS, LEASE_BEATS } from '../cluster/heartbeat.ts';
import type { WakeupEvent, Wakeups } from '../cluster/wakeups.ts';
import type { Logger } from '../log.ts';
import type { SessionState } from '../store/repos/turn-reads.ts';
import type { Store } from '../store/store.ts';
import { newLeaseOwner } from './lease-owner.ts';

/**
 * How long a lease outlives the heartbeat that last renewed it. It bounds how long a session
 * waits for a process that died; on this host a restart reclaims the lease at once.
 */
const DEFAULT_LEASE_MS = DEFAULT_HEARTBEAT_MS * LEASE_BEATS;

/** Cancels that arrived before their turn started here (a race with /stop), kept this long. */
const EARLY_CANCEL_MS = 60_000;

/** How long stop() waits for aborted turns to wind down. */
const ABORT_WIND_DOWN_MS = 1_500;

export interface SchedulerOptions {
  store: Store;
  log: Logger;
  leaseMs?: number;
  owner?: string;
  /** Where /stop requests for turns running here arrive from other processes. */
  wakeups?: Wakeups;
}

interface Running {
  turnId: string | undefined;
  controller: AbortController;
  /** The session's state as the turn's end released the lease (releasedWith). */
  released?: SessionState;
}

/** A held lease: the session's state as it was taken, and where the turn's abort signal comes from. */
interface Lease {
  /** The session as the lease was taken (same statement): its unfinished turn and oldest queued message. */
  readonly state: SessionState;
  setTurn(turnId: string): AbortSignal;
}

export type SessionWork = (lease: Lease) => Promise<void>;

/** What withLeaseThenLook found: no lease, or the session's state once the lease was released. */
export type LeasedLook = { worked: false } | { worked: true; after: SessionState | undefined };

export class SessionScheduler {
  readonly owner: string;
  readonly #store: Store;
  readonly #log: Logger;
  readonly #leaseMs: number;
  readonly #wakeups: Wakeups | undefined;
  readonly #running = new Map<string, Running>();
  readonly #tasks = new Set<Promise<unknown>>();
  readonly #earlyCancels = new Map<string, { by: string; at: number }>();
  readonly #leaseEnded = new Set<(sessionId: string) => void>();
  /** Keys of sessions whose lease a fresh start (startFresh) is taking right now. */
  readonly #starting = new Set<string>();
  #lastRenewed = Date.now();
  #stopping = false;

  constructor(options: SchedulerOptions) {
    this.#store = options.store;
    this.#log = options.log;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.owner = options.owner ?? newLeaseOwner();
    this.#wakeups = options.wakeups;
    options.wakeups?.subscribe((event) => this.#onWakeup(event));
  }

  /**
   * Calls `listener` after this process released a session's lease, or gave up waiting for one:
   * work may be left on that session for a later look.
   */
  onLeaseEnded(listener: (sessionId: string) => void): () => void {
    this.#leaseEnded.add(listener);
    return () => this.#leaseEnded.delete(listener);
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  /** True when this process is working on the session right now. */
  isBusy(sessionId: string): boolean {
    return this.#running.has(sessionId);
  }

  /** Abort the turn running here for this session; false when none runs here. */
  abortLocal(sessionId: string, reason: Error, turnId?: string): boolean {
    const running = this.#running.get(sessionId);
    if (!running?.turnId || (turnId && running.turnId !== turnId)) return false;
    running.controller.abort(reason);
    return true;
  }

  /** /stop for a turn running on another process: recorded in the database, then that process is woken. */
  async requestStop(turnId: string, by: string): Promise<void> {
    if (await this.#store.turns.requestCancel(turnId, by)) await this.#wakeups?.publish({ kind: 'cancel', turnId, by });
  }

  /** Track a background task so shutdown can wait for it. */
  track<T>(task: Promise<T>): Promise<T> {
    this.#tasks.add(task);
    void task.finally(() => this.#tasks.delete(task)).catch(() => {});
    return task;
  }

  /**
   * Runs `work` while holding the session's lease. Waits up to `waitMs` for a lease held
   * elsewhere. Returns false when the lease could not be had (someone else is working on it).
   */
  async withLease(sessionId: string, work: SessionWork, waitMs = 0): Promise<boolean> {
    return (await this.withLeaseThenLook(sessionId, work, waitMs)).worked;
  }

  /**
   * withLease, and the session's state right after the lease was released (read by the releasing
   * statement itself): what the worker decides whether to go on with.
   */
  async withLeaseThenLook(sessionId: string, work: SessionWork, waitMs = 0): Promise<LeasedLook> {
    const deadline = Date.now() + waitMs;
    let state: SessionState | undefined;
    for (;;) {
      if (this.#stopping) return { worked: false };
      // A lease held by this process is re-entrant in the database, so local work is checked here.
      if (!this.#running.has(sessionId)) {
        state = await this.#store.turnReads.takeLease(sessionId, this.owner, this.#leaseMs);
        if (state && !this.#running.has(sessionId) && !this.#starting.has(state.session.key)) break;
      }
      if (Date.now() >= deadline) {
        if (waitMs > 0) this.#ended(sessionId);
        return { worked: false };
      }
      await sleep(Math.min(100, Math.max(10, deadline - Date.now())));
    }
    return this.#holding(sessionId, state, work);
  }

  /**
   * A session's first step taken together with its lease: `take` writes it, taking the lease for
   * this process's owner only when nobody holds it (this process included), and returns the state
   * it took the lease with. Then `run` works under that lease like withLeaseThenLook; the caller
   * must call it at once. Undefined when `take` took nothing (or this process is busy with the
   * session, or stopping): nothing was written.
   */
  async startFresh<T extends { state: SessionState }>(
    key: string,
    take: (owner: string, leaseMs: number) => Promise<T | 'duplicate' | undefined>,
  ): Promise<(T & { run: (work: SessionWork) => Promise<LeasedLook> }) | 'duplicate' | undefined> {
    if (this.#stopping || this.#starting.has(key)) return undefined;
    // Held until this process runs the session (set synchronously below), so a worker that takes
    // the lease in between (re-entrant for this owner) leaves the session to this start.
    this.#starting.add(key);
    let taken: T | 'duplicate' | undefined;
    try {
      taken = await take(this.owner, this.#leaseMs);
    } finally {
      this.#starting.delete(key);
    }
    if (taken === undefined || taken === 'duplicate') return taken;
    const { id } = taken.state.session;
    const running = this.#register(id);
    return { ...taken, run: (work) => this.#holding(id, taken.state, work, running) };
  }

  #register(sessionId: string): Running {
    const running: Running = { turnId: undefined, controller: new AbortController() };
    this.#running.set(sessionId, running);
    return running;
  }

  async #holding(sessionId: string, state: SessionState, work: SessionWork, registered?: Running): Promise<LeasedLook> {
    const running = registered ?? this.#register(sessionId);
    let after: SessionState | undefined | 'unknown' = 'unknown';
    try {
      await work({
        state,
        setTurn: (turnId) => {
          running.turnId = turnId;
          running.controller = new AbortController();
          if (this.#stopping) running.controller.abort(new ShutdownRequest());
          const early = this.#earlyCancels.get(turnId);
          if (early) running.controller.abort(new StopRequest(early.by));
          return running.controller.signal;
        },
      });
    } finally {
      // Released with the turn's end, the session may be worked on again (by a new entry) already.
      if (this.#running.get(sessionId) === running) this.#running.delete(sessionId);
      // The turn's answer was handed to delivery as its work ended: let its request go out first,
      // so this statement (synchronous on SQLite) does not hold the answer up.
      if (!running.released) await setImmediate();
      after = running.released ?? (await this.#release(sessionId));
      this.#ended(sessionId);
    }
    // Not released here (the lease had been taken over, or releasing failed): a separate look.
    return { worked: true, after: after === 'unknown' ? await this.#store.turnReads.sessionState(sessionId) : after };
  }

  /**
   * The write that ended the session's turn released its lease too: the session is no longer
   * this process's (nor counted among the leases the heartbeat renews), and `state` is the look
   * its worker goes on with.
   */
  releasedWith(sessionId: string, state: SessionState): void {
    const running = this.#running.get(sessionId);
    if (!running) return;
    running.released = state;
    this.#running.delete(sessionId);
  }

  async #release(sessionId: string): Promise<SessionState | 'unknown'> {
    try {
      return (await this.#store.turnReads.releaseLease(sessionId, this.owner)) ?? 'unknown';
    } catch (error) {
      this.#log.warn({ err: error, sessionId }, 'could not release a session lease; it will expire');
      return 'unknown';
    }
  }

  #ended(sessionId: string): void {
    for (const listener of this.#leaseEnded) listener(sessionId);
  }

  /**
   * The heartbeat's part: extends every lease held here in one statement. If fewer leases were
   * extended than sessions run here, some were lost (this process was taken for dead): those
   * turns stop so that two processes never run one session.
   */
  async renewLeases(now: Date): Promise<void> {
    if (this.#running.size === 0) {
      this.#lastRenewed = now.getTime();
      return;
    }
    const held = this.#running.size;
    const renewed = await this.#store.sessions.renewLeasesOf(this.owner, new Date(now.getTime() + this.#leaseMs));
    this.#lastRenewed = now.getTime();
    if (renewed >= held) return;
    for (const [sessionId, running] of this.#running) {
      if (!(await this.#store.sessions.renewLease(sessionId, this.owner, this.#leaseMs))) this.#lost(sessionId, running);
    }
  }

  /** A beat failed: once the leases may have run out, stop every turn running here. */
  leaseLapsed(now: Date): void {
    if (now.getTime() - this.#lastRenewed < this.#leaseMs) return;
    for (const [sessionId, running] of this.#running) this.#lost(sessionId, running);
  }

  #lost(sessionId: string, running: Running): void {
    if (running.controller.signal.aborted) return;
    this.#log.error({ sessionId }, 'lost the session lease; stopping the turn so two processes never run one session');
    running.controller.abort(new Error('session lease lost'));
  }

  #onWakeup(event: WakeupEvent): void {
    if (event.kind === 'cancel') this.#cancel(event.turnId, event.by);
    // The listener was (or is) disconnected: look up /stop requests that may have been missed.
    else if (event.kind === 'resync') void this.#checkCancels();
  }

  #cancel(turnId: string, by: string): void {
    for (const running of this.#running.values()) {
      if (running.turnId === turnId) {
        if (!running.controller.signal.aborted) running.controller.abort(new StopRequest(by));
        return;
      }
    }
    // Its turn may be about to start here (the request raced the start): remember it for a while.
    const now = Date.now();
    for (const [id, early] of this.#earlyCancels) if (now - early.at > EARLY_CANCEL_MS) this.#earlyCancels.delete(id);
    this.#earlyCancels.set(turnId, { by, at: now });
  }

  async #checkCancels(): Promise<void> {
    for (const running of this.#running.values()) {
      if (!running.turnId || running.controller.signal.aborted) continue;
      try {
        const cancel = await this.#store.turns.cancelRequest(running.turnId);
        if (cancel.requested) running.controller.abort(new StopRequest(cancel.by ?? 'someone'));
      } catch (error) {
        this.#log.warn({ err: error }, 'could not check for /stop requests');
      }
    }
  }

  /**
   * Stop taking new work, give running turns `graceMs` to finish, then abort them at their next
   * checkpoint (they stay resumable) and wait for them to wind down.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    const all = () => Promise.allSettled([...this.#tasks]);
    const finished = await Promise.race([all().then(() => true), sleep(graceMs).then(() => false)]);
    if (finished) return;
    for (const running of this.#running.values()) running.controller.abort(new ShutdownRequest());
    // A turn stops at its next checkpoint; one stuck on an unreachable platform is left behind.
    await Promise.race([all(), sleep(ABORT_WIND_DOWN_MS)]);
  }
}
