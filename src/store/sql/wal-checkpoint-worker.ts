// The store's WAL checkpoints, on their own thread and connection (see wal-checkpointer.ts): copies
// committed pages from the WAL into the database file every interval, without blocking writers
// (PASSIVE), so the thread answering messages does not do that copy and its fsync inside a commit.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file, { timeout: 15_000 });
db.pragma('synchronous = NORMAL');

function checkpoint(): void {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or failing: the next interval tries again, and the store's own connection still
    // checkpoints when its WAL grows too large.
  }
}

const timer = setInterval(checkpoint, intervalMs);
parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort?.close();
});
parentPort?.postMessage({ ready: true });
