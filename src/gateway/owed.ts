// One turn's answer (or approval prompts) while this process delivers it. The write that finished
// (or suspended) the turn recorded it as owed by this process (see owed-answers.ts); this updates
// the record as the answer takes more messages and clears it once the chat has it.
import type { OwedAnswer, OwedAnswersRepo, OwedKind } from '../store/repos/owed-answers.ts';
import { owedRecord } from '../store/repos/owed-answers.ts';

export class OwedDelivery {
  readonly #repo: OwedAnswersRepo;
  readonly #turnId: string;
  readonly #owner: string;
  /** The record this process last wrote; undefined while it is the one the finishing write made. */
  #record: string | undefined;
  /** Writes run one after another. */
  #writes: Promise<void> = Promise.resolve();

  constructor(repo: OwedAnswersRepo, turnId: string, owner: string, claimed?: OwedAnswer) {
    this.#repo = repo;
    this.#turnId = turnId;
    this.#owner = owner;
    this.#record = claimed?.raw;
  }

  /** Records the answer as shown so far in `reply`'s messages (only while the record is this process's). */
  record(reply: OwedAnswer['reply']): Promise<void> {
    return this.#then(async () => {
      const next = owedRecord(this.#owner, reply);
      if (next === this.#record) return;
      if (await this.#repo.update(this.#turnId, this.#owner, next)) this.#record = next;
    });
  }

  /** The delivery is over (delivered, or the chat was told it failed): nothing is owed. */
  settle(kind: OwedKind = 'answer'): Promise<void> {
    return this.#then(async () => {
      await this.#repo.settle(this.#turnId, kind, this.#owner);
      this.#record = undefined;
    });
  }

  #then(write: () => Promise<void>): Promise<void> {
    const next = this.#writes.then(write);
    // A failed write does not stop the ones after it; its caller sees the error.
    this.#writes = next.catch(() => {});
    return next;
  }
}
