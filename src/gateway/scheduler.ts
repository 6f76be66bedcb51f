// Exactly one running turn per session, across all processes: work on a session happens only
// while holding its lease (a conditional update in the database), which is renewed by a
// heartbeat that also picks up /stop requests made on other processes.
import { setTimeout as sleep } from 'node:timers/promises';
import { ShutdownRequest, StopRequest } from '../agent/abort.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import { newLeaseOwner } from './lease-owner.ts';

/**
 * How long a lease outlives its last heartbeat (one a second). It bounds how long a session waits
 * for a process that died on another host; on this host a restart reclaims the lease at once.
 */
const DEFAULT_LEASE_MS = 15_000;

/** How long stop() waits for aborted turns to wind down. */
const ABORT_WIND_DOWN_MS = 1_500;

export interface SchedulerOptions {
  store: Store;
  log: Logger;
  leaseMs?: number;
  /** How often a running turn checks for a /stop made on another process. */
  cancelPollMs?: number;
  owner?: string;
}

interface Running {
  turnId: string | undefined;
  controller: AbortController;
}

export type SessionWork = (lease: { setTurn(turnId: string): AbortSignal }) => Promise<void>;

export class SessionScheduler {
  readonly owner: string;
  readonly #store: Store;
  readonly #log: Logger;
  readonly #leaseMs: number;
  readonly #cancelPollMs: number;
  readonly #running = new Map<string, Running>();
  readonly #tasks = new Set<Promise<unknown>>();
  #stopping = false;

  constructor(options: SchedulerOptions) {
    this.#store = options.store;
    this.#log = options.log;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#cancelPollMs = options.cancelPollMs ?? 1_000;
    this.owner = options.owner ?? newLeaseOwner();
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
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (this.#stopping) return false;
      // A lease held by this process is re-entrant in the database, so local work is checked here.
      if (!this.#running.has(sessionId) && (await this.#store.sessions.acquireLease(sessionId, this.owner, this.#leaseMs))) {
        if (!this.#running.has(sessionId)) break;
      }
      if (Date.now() >= deadline) return false;
      await sleep(Math.min(100, Math.max(10, deadline - Date.now())));
    }
    const running: Running = { turnId: undefined, controller: new AbortController() };
    this.#running.set(sessionId, running);
    const heartbeat = setInterval(() => void this.#beat(sessionId, running), Math.min(this.#cancelPollMs, this.#leaseMs / 3));
    try {
      await work({
        setTurn: (turnId) => {
          running.turnId = turnId;
          running.controller = new AbortController();
          if (this.#stopping) running.controller.abort(new ShutdownRequest());
          return running.controller.signal;
        },
      });
      return true;
    } finally {
      clearInterval(heartbeat);
      this.#running.delete(sessionId);
      await this.#store.sessions.releaseLease(sessionId, this.owner).catch((error: unknown) => {
        this.#log.warn({ err: error, sessionId }, 'could not release a session lease; it will expire');
      });
    }
  }

  async #beat(sessionId: string, running: Running): Promise<void> {
    try {
      const kept = await this.#store.sessions.renewLease(sessionId, this.owner, this.#leaseMs);
      if (!kept) {
        this.#log.error({ sessionId }, 'lost the session lease; stopping the turn so two processes never run one session');
        running.controller.abort(new Error('session lease lost'));
        return;
      }
      if (running.turnId && !running.controller.signal.aborted) {
        const cancel = await this.#store.turns.cancelRequest(running.turnId);
        if (cancel.requested) running.controller.abort(new StopRequest(cancel.by ?? 'someone'));
      }
    } catch (error) {
      this.#log.warn({ err: error, sessionId }, 'session heartbeat failed');
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
