import { Worker } from 'node:worker_threads';
import type { WorkerJob } from './store-worker.ts';

/**
 * Runs each job in its own worker thread (own connection, own event loop), released together.
 * `database` is a SQLite file path or a database URL.
 */
export async function raceInWorkers<T>(database: string, jobs: WorkerJob[]): Promise<T[]> {
  const databaseUrl = /^(file|postgres(ql)?):/.test(database) ? database : `file:${database}`;
  const barrier = new SharedArrayBuffer(8);
  const flag = new Int32Array(barrier);
  const workers = jobs.map(
    (job) =>
      new Worker(new URL('./store-worker.ts', import.meta.url), {
        workerData: { databaseUrl, job, barrier },
        execArgv: ['--import', 'tsx'],
      }),
  );
  const results = workers.map(
    (worker) =>
      new Promise<T>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
      }),
  );
  while (Atomics.load(flag, 1) < jobs.length) await new Promise((r) => setTimeout(r, 5));
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  return Promise.all(results);
}
