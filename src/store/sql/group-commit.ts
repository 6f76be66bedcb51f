// SQLite transactions that arrive together commit together. A transaction runs at once when none
// is open; the ones that arrive before the end of that turn of the event loop run after it in the
// same database transaction, each in its own savepoint (the first needs none), and one COMMIT ends
// them all. Under load a commit then writes the pages they share (a table's last page, the indexes
// that grow at one end) once instead of once per transaction; alone, a transaction is sent as
// BEGIN … COMMIT exactly as before, one event-loop turn later.
//
// Each transaction is still all or nothing and sees only committed rows or its group's earlier
// ones (they ran before it, on this connection). One that throws is rolled back to its savepoint
// (the whole group when it was the first) and rejects at once; the others resolve after COMMIT, or
// all reject if COMMIT fails or SQLite had to roll the group back.
import type { SqlRunner } from './driver.ts';

export interface GroupCommitOptions {
  /** Runs a statement without values (BEGIN, COMMIT, SAVEPOINT…) on the connection. */
  control(text: string): void;
  inTransaction(): boolean;
  runner: SqlRunner;
  /** Runs `work` with the connection to itself: no other statement lands meanwhile. */
  exclusive(work: () => Promise<void>): Promise<void>;
}

interface Member {
  fn: (tx: SqlRunner) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class GroupCommit {
  readonly #o: GroupCommitOptions;
  readonly #pending: Member[] = [];
  #running = false;

  constructor(options: GroupCommitOptions) {
    this.#o = options;
  }

  add<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.#start();
    });
  }

  #start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#o
      .exclusive(async () => {
        while (this.#pending.length > 0) await this.#group();
      })
      .finally(() => {
        this.#running = false;
        // Arrived between the last group's end and the connection's release.
        if (this.#pending.length > 0) this.#start();
      });
  }

  /** One database transaction: members until none is waiting at the end of an event-loop turn. */
  async #group(): Promise<void> {
    const { control, inTransaction } = this.#o;
    const done: { member: Member; value: unknown }[] = [];
    try {
      control('BEGIN IMMEDIATE');
    } catch (error) {
      // Nothing ran: the first waiting transaction fails (the database is locked or gone); the rest try again.
      this.#pending.shift()?.reject(error);
      return;
    }
    try {
      if (await this.#members(done)) control('COMMIT');
    } catch (error) {
      // COMMIT failed, or SQLite rolled the transaction back under a member (a disk error, say).
      if (inTransaction()) {
        try {
          control('ROLLBACK');
        } catch {
          // The connection reports the next statement's failure.
        }
      }
      for (const { member } of done) member.reject(error);
      return;
    }
    for (const { member, value } of done) member.resolve(value);
  }

  /**
   * Runs waiting members into the open transaction: false when it was rolled back instead (its
   * first member failed); throws when SQLite lost it.
   */
  async #members(done: { member: Member; value: unknown }[]): Promise<boolean> {
    const { control, inTransaction, runner } = this.#o;
    for (;;) {
      const member = this.#pending.shift();
      if (!member) {
        await nextTurn();
        if (this.#pending.length === 0) return true;
        continue;
      }
      const first = done.length === 0;
      try {
        if (!first) control('SAVEPOINT grouped');
        const value = await member.fn(runner);
        if (!first) control('RELEASE grouped');
        done.push({ member, value });
      } catch (error) {
        member.reject(error);
        if (!inTransaction()) throw error;
        if (first) {
          // Alone in the transaction so far: it ends here, and the next group starts afresh.
          control('ROLLBACK');
          return false;
        }
        control('ROLLBACK TO grouped');
        control('RELEASE grouped');
      }
    }
  }
}
