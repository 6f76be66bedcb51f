// One channel's exclusive receiver, run by whichever process holds its lease. Every beat the
// holder renews the lease and the others try to take it (one statement each); a holder that cannot
// renew (the database is gone) stops receiving one beat before its lease can run out, so two
// processes never receive at once even when the other side takes over the moment it expires.
import type { ExclusiveReceiver } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { ReceiversRepo } from '../store/repos/receivers.ts';

export interface ReceiverLeaderOptions {
  /** The channel instance id (the lease's key). */
  id: string;
  receiver: ExclusiveReceiver;
  repo: ReceiversRepo;
  owner: string;
  /** How long a claim holds without renewal. */
  leaseMs: number;
  /** The heartbeat interval: the holder stops receiving this long before its lease ends. */
  beatMs: number;
  /** Take the lease whoever holds it (SQLite: one process, any holder is a previous run). */
  force: boolean;
  log: Logger;
}

export class ReceiverLeader {
  readonly #o: ReceiverLeaderOptions;
  /** The fencing token while this process holds the lease. */
  #token: number | undefined;
  #receiving = false;
  #deadline: NodeJS.Timeout | undefined;
  #work: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: ReceiverLeaderOptions) {
    this.#o = options;
  }

  get token(): number | undefined {
    return this.#token;
  }

  get receiving(): boolean {
    return this.#receiving;
  }

  /** Claims or renews the lease and starts or stops the receiver to match (never overlapping). */
  tick(now: Date): Promise<void> {
    const run = this.#work.then(() => this.#tick(now));
    this.#work = run.catch(() => undefined);
    return run;
  }

  async #tick(now: Date): Promise<void> {
    if (this.#stopped) return;
    const { repo, id, owner, leaseMs, force } = this.#o;
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const state = this.#receiving ? this.#o.receiver.state?.() : undefined;
    const token = await repo.claim({ receiver: id, owner, now, leaseUntil, force, state });
    if (token === undefined) {
      if (this.#receiving) {
        this.#o.log.warn({ receiver: id }, 'another process took this receiver; stopping it here');
        await this.#stopReceiver();
      }
      this.#token = undefined;
      return;
    }
    this.#armDeadline(leaseUntil);
    if (token !== this.#token) this.#o.log.info({ receiver: id, token }, `${id}: this process now holds the receiver`);
    this.#token = token;
    if (this.#receiving) return;
    await this.#startReceiver();
    // The session just made is worth resuming should this process die before its next beat: a beat
    // now stores it (and stops the receiver, should the lease have gone meanwhile).
    if (this.#receiving && this.#o.receiver.state?.() !== undefined) await this.#tick(new Date());
  }

  /** Stops receiving before the lease could lapse, unless a renewal comes first. */
  #armDeadline(leaseUntil: Date): void {
    clearTimeout(this.#deadline);
    const stopInMs = Math.max(this.#o.beatMs / 2, leaseUntil.getTime() - this.#o.beatMs - Date.now());
    this.#deadline = setTimeout(() => {
      this.#o.log.warn({ receiver: this.#o.id }, `${this.#o.id}: could not renew the receiver lease; stopping the receiver`);
      this.#token = undefined;
      this.#work = this.#work.then(() => this.#stopReceiver()).catch(() => undefined);
    }, stopInMs);
    this.#deadline.unref();
  }

  async #startReceiver(): Promise<void> {
    const { receiver, id, log, repo } = this.#o;
    const resumeFrom = receiver.state ? await repo.state(id) : undefined;
    this.#receiving = true;
    try {
      await receiver.start((error) => {
        if (!this.#receiving) return;
        log.warn({ err: error, receiver: id }, `${id}: the receiver stopped by itself; giving up the lease`);
        this.#receiving = false;
        void this.#release();
      }, resumeFrom);
    } catch (error) {
      this.#receiving = false;
      await this.#release();
      throw error;
    }
  }

  async #stopReceiver(): Promise<void> {
    if (!this.#receiving) return;
    this.#receiving = false;
    await this.#o.receiver.stop();
  }

  async #release(): Promise<void> {
    clearTimeout(this.#deadline);
    this.#token = undefined;
    await this.#o.repo.release(this.#o.id, this.#o.owner).catch((error: unknown) => {
      this.#o.log.warn({ err: error, receiver: this.#o.id }, 'could not release the receiver lease; it will run out');
    });
  }

  /** Stops receiving and frees the lease, so that a standby takes it at its next beat. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#deadline);
    await this.#work;
    const held = this.#token !== undefined || this.#receiving;
    await this.#stopReceiver();
    if (held) await this.#release();
  }
}
