// One heartbeat per process: on each beat it refreshes the process's row, extends every session
// lease the process holds in one statement, and runs the tasks others registered (receiver
// leases, reaping processes that stopped beating). Nothing else in Parley runs on a timer while idle.
import { hostname } from 'node:os';
import type { Logger } from '../log.ts';
import type { ProcessesRepo } from '../store/repos/processes.ts';

export const DEFAULT_HEARTBEAT_MS = 2_000;

/**
 * Session leases outlive the last beat by this many intervals (a missed beat or two is fine); a
 * process silent that long is taken for dead, so a kill -9 is noticed within about 4 intervals.
 */
export const LEASE_BEATS = 3;

export type BeatTask = (now: Date) => Promise<void>;

export interface HeartbeatOptions {
  owner: string;
  processes: ProcessesRepo;
  /** Extends every session lease this process holds (one statement). */
  renewLeases(now: Date): Promise<unknown>;
  /** A beat failed (the database is unreachable): leases may be running out. */
  onFailed?(now: Date): void;
  log: Logger;
  intervalMs?: number;
  /** Channel instance ids this process serves (shown by `parley status`). */
  channels?: () => string[];
  now?: () => Date;
}

/** PARLEY_HEARTBEAT_MS, when set to a sane number of milliseconds. */
export function heartbeatMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.PARLEY_HEARTBEAT_MS);
  return Number.isInteger(value) && value >= 50 && value <= 60_000 ? value : DEFAULT_HEARTBEAT_MS;
}

export class Heartbeat {
  readonly owner: string;
  readonly intervalMs: number;
  readonly #o: HeartbeatOptions;
  readonly #tasks = new Set<BeatTask>();
  readonly #startedAt: Date;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  #tasksRunning: Promise<void> | undefined;
  #stopped = false;

  constructor(options: HeartbeatOptions) {
    this.#o = options;
    this.owner = options.owner;
    this.intervalMs = options.intervalMs ?? DEFAULT_HEARTBEAT_MS;
    this.#startedAt = this.#now();
  }

  /** Runs `task` on every beat until the returned function is called. */
  onBeat(task: BeatTask): () => void {
    this.#tasks.add(task);
    return () => this.#tasks.delete(task);
  }

  /** Beats once (so the row exists before anything else runs), then every interval. */
  async start(): Promise<void> {
    if (this.#timer || this.#stopped) return;
    await this.beat();
    // Not unref'd: the heartbeat is what keeps a bot with no network channel alive.
    this.#timer = setInterval(() => void this.beat(), this.intervalMs);
  }

  /**
   * One beat; resolves when its tasks have run too. Beats never overlap (a slow database skips a
   * beat instead of piling them up), and slow tasks never delay the next beat's lease renewals:
   * while they still run, the next beat renews and leaves the tasks out.
   */
  beat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => {
      this.#beating = undefined;
    });
    return this.#beating.then(() => this.#tasksRunning);
  }

  async #beat(): Promise<void> {
    const now = this.#now();
    const { processes, log } = this.#o;
    try {
      await processes.beat(
        { owner: this.owner, host: hostname(), pid: process.pid, startedAt: this.#startedAt, channels: this.#o.channels?.() ?? [] },
        now,
      );
      await this.#o.renewLeases(now);
    } catch (error) {
      log.warn({ err: error }, 'heartbeat failed; retrying on the next beat');
      this.#o.onFailed?.(now);
      return;
    }
    this.#tasksRunning ??= this.#runTasks(now).finally(() => {
      this.#tasksRunning = undefined;
    });
  }

  async #runTasks(now: Date): Promise<void> {
    for (const task of this.#tasks) {
      try {
        await task(now);
      } catch (error) {
        this.#o.log.warn({ err: error }, 'a heartbeat task failed');
      }
    }
  }

  /** Stops beating and removes the process's row (others then know it is gone at once). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#beating;
    await this.#tasksRunning;
    await this.#o.processes.remove(this.owner).catch((error: unknown) => {
      this.#o.log.warn({ err: error }, 'could not remove this process from the process table; it will go stale');
    });
  }

  #now(): Date {
    return this.#o.now?.() ?? new Date();
  }
}
