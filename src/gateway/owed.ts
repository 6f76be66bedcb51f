// One turn's answer while this process delivers it: recorded as owed (see owed-answers.ts) only when
// the delivery is slow, updated as it sends more messages, and cleared once it is over.
import type { OwedAnswer, OwedAnswersRepo } from '../store/repos/owed-answers.ts';
import { owedRecord } from '../store/repos/owed-answers.ts';

export class OwedDelivery {
  readonly #repo: OwedAnswersRepo;
  readonly #turnId: string;
  readonly #owner: string;
  /** The record this process last wrote (or claimed); null while nothing is recorded. */
  #record: string | null;
  /** Writes run one after another, each expecting the record the previous one left. */
  #writes: Promise<void> = Promise.resolve();

  constructor(repo: OwedAnswersRepo, turnId: string, owner: string, claimed?: OwedAnswer) {
    this.#repo = repo;
    this.#turnId = turnId;
    this.#owner = owner;
    this.#record = claimed?.raw ?? null;
  }

  get recorded(): boolean {
    return this.#record !== null;
  }

  /** Records (or updates) the answer as owed, shown so far in `reply`'s messages. */
  record(reply: OwedAnswer['reply']): Promise<void> {
    return this.#then(async () => {
      const next = owedRecord(this.#owner, reply);
      if (next === this.#record) return;
      // Not swapped: the turn is not done, or another process has claimed the answer (it delivers it).
      if (await this.#repo.swap(this.#turnId, this.#record, next)) this.#record = next;
    });
  }

  /** The delivery is over (delivered, or the chat was told it failed): nothing is owed. */
  settle(): Promise<void> {
    return this.#then(async () => {
      if (this.#record === null) return;
      await this.#repo.swap(this.#turnId, this.#record, null);
      this.#record = null;
    });
  }

  #then(write: () => Promise<void>): Promise<void> {
    const next = this.#writes.then(write);
    // A failed write does not stop the ones after it; its caller sees the error.
    this.#writes = next.catch(() => {});
    return next;
  }
}
