// SQLite checkpoints (copying the WAL into the database file, with an fsync) run by default inside
// the commit that grows the WAL past 1,000 pages: under load, on the thread that answers messages,
// every few dozen commits. Once the store has written a while, a worker thread with its own
// connection takes that over (and the WAL's restarts after them, see wal-checkpoint-worker.ts); the
// store's connection then checkpoints only when the WAL still reaches LARGE_WAL_PAGES (the worker
// fell behind or failed), and only what the worker has not copied yet. Started on demand, so an
// idle bot does not pay for the thread.
import type { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './wal-checkpoint-worker.ts' : './wal-checkpoint-worker.js', import.meta.url);
/** Statements before the worker starts: a bot that answers now and then keeps SQLite's own checkpoints. */
const STATEMENTS_BEFORE_WORKER = 500;
/** The worker looks every TICK_MS: a store that ran no statement for a whole tick is quiet. */
const TICK_MS = 20;
/** While the store keeps writing, the worker checkpoints this often. */
const BUSY_INTERVAL_MS = 200;
/** The store's connection's own checkpoint threshold while the worker runs (SQLite's default: 1,000). */
const LARGE_WAL_PAGES = 10_000;
const DEFAULT_WAL_PAGES = 1_000;

export class WalCheckpointer {
  readonly #db: Database.Database;
  readonly #file: string;
  /** [0]: statements run; read by the worker to tell a quiet store from a busy one. */
  readonly #activity = new Int32Array(new SharedArrayBuffer(4));
  #worker: Worker | undefined;
  /** The worker has its connection and runs checkpoints. */
  #ready = false;
  #stopped = false;

  constructor(db: Database.Database, file: string) {
    this.#db = db;
    this.#file = file;
  }

  /** Called with each statement of the store's connection. */
  used(): void {
    const statements = Atomics.add(this.#activity, 0, 1) + 1;
    if (this.#worker || this.#stopped || statements < STATEMENTS_BEFORE_WORKER || this.#file === ':memory:') return;
    this.#start();
  }

  #start(): void {
    // TypeScript sources (tests) need tsx in the worker too; built JavaScript does not.
    const execArgv = WORKER_URL.pathname.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [];
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    let worker: Worker;
    try {
      worker = new Worker(WORKER_URL, {
        execArgv,
        workerData: { file: this.#file, tickMs: TICK_MS, busyIntervalMs: BUSY_INTERVAL_MS, activity: this.#activity },
      });
    } catch {
      this.#stopped = true;
      return;
    }
    this.#worker = worker;
    worker.unref();
    worker.on('message', (message: { ready?: boolean }) => {
      if (!message.ready || this.#worker !== worker) return;
      this.#ready = true;
      if (this.#db.open) this.#db.pragma(`wal_autocheckpoint = ${LARGE_WAL_PAGES}`);
    });
    const fallBack = () => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#stopped = true;
      if (this.#db.open) this.#db.pragma(`wal_autocheckpoint = ${DEFAULT_WAL_PAGES}`);
    };
    worker.on('error', fallBack);
    worker.on('exit', fallBack);
  }

  /** Stops the worker after a last checkpoint (before the store's connection closes). */
  async stop(): Promise<void> {
    this.#stopped = true;
    const worker = this.#worker;
    if (!worker) return;
    this.#worker = undefined;
    if (!this.#ready) {
      // Still starting: it has checkpointed nothing, and SQLite's own checkpoints were never off.
      await worker.terminate();
      return;
    }
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Kept alive until it has stopped: unref'd, a process with nothing else to do would exit first
    // and never settle the store's close().
    worker.ref();
    worker.postMessage('stop');
    const timeout = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 5_000).unref());
    if ((await Promise.race([exited, timeout])) === 'late') await worker.terminate();
    if (this.#db.open) this.#db.pragma(`wal_autocheckpoint = ${DEFAULT_WAL_PAGES}`);
  }
}
