// The store's WAL checkpoints, on their own thread and connection (see wal-checkpointer.ts): copies
// committed pages from the WAL into the database file without blocking writers (PASSIVE), so the
// thread answering messages does not do that copy and its fsync inside a commit.
//
// Once a checkpoint has copied the whole WAL, the next write starts the WAL over from its first
// frame, and SQLite syncs the new WAL header before that write commits (even with synchronous =
// NORMAL). Left to the store's connection, that is one fsync on the thread answering messages at
// the first write after each quiet moment: at the start of nearly every turn of a bot that is not
// flooded. So the worker checkpoints when the store has gone quiet, and then makes that first
// write itself (it rewrites `user_version` unchanged), paying the header's fsync here. While the
// store keeps writing, it checkpoints every BUSY_INTERVAL_MS only.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, tickMs, busyIntervalMs, activity } = workerData as {
  file: string;
  /** A quiet store: no statement for a whole tick. */
  tickMs: number;
  busyIntervalMs: number;
  /** activity[0]: statements the store's connection has run (counted by wal-checkpointer.ts). */
  activity: Int32Array;
};
// No busy wait: a checkpoint never needs one (PASSIVE), and the WAL's restart is skipped when the
// store is writing at that moment (it then restarts the WAL itself, as without this worker).
const db = new Database(file, { timeout: 0 });
db.pragma('synchronous = NORMAL');
const rewriteUserVersion = db.transaction(() => {
  db.pragma(`user_version = ${Number(db.pragma('user_version', { simple: true }))}`);
});

/** True when the checkpoint copied every frame of the WAL into the database file. */
function checkpoint(): boolean {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    return result !== undefined && result.busy === 0 && result.log > 0 && result.checkpointed === result.log;
  } catch {
    // Busy or failing: the next tick tries again, and the store's own connection still
    // checkpoints when its WAL grows too large.
    return false;
  }
}

let seen = Atomics.load(activity, 0);
/** The store has written since the last checkpoint. */
let written = false;
let lastCheckpoint = performance.now();

function tick(): void {
  const statements = Atomics.load(activity, 0);
  const busy = statements !== seen;
  seen = statements;
  if (busy) {
    written = true;
    if (performance.now() - lastCheckpoint < busyIntervalMs) return;
  } else if (!written) {
    return; // quiet, and checkpointed since its last write
  }
  written = false;
  lastCheckpoint = performance.now();
  const copiedAll = checkpoint();
  if (busy || !copiedAll || Atomics.load(activity, 0) !== statements) return;
  try {
    rewriteUserVersion.immediate();
  } catch {
    // The store took the write lock first: its write restarts the WAL, as without this worker.
  }
}

const timer = setInterval(tick, tickMs);
parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort?.close();
});
parentPort?.postMessage({ ready: true });
