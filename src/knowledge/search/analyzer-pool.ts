// Worker threads that prepare pages for the index in parallel during large builds and imports
// (analysis, term ids and page records are most of the work of indexing); the main thread
// meanwhile writes what the workers have finished. When workers cannot start (or one fails), the
// main thread does the work instead: slower, never wrong.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { KnowledgePageRecord } from '../../store/repos/knowledge.ts';
import type { PreparedPage } from './segment-builder.ts';

/** Pages a worker prepared, with the index epoch their term ids belong to. */
export interface PreparedBatch {
  epoch: string | undefined;
  /** `embed`: the hash of the text the page's embedding is computed from (see vectors.ts). */
  pages: (PreparedPage & { ids: Int32Array; counts: Int32Array; embed: string })[];
}

interface Job {
  resolve(batch: PreparedBatch): void;
  reject(error: Error): void;
}

const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './analyze-worker.ts' : './analyze-worker.js', import.meta.url);

export class AnalyzerPool {
  readonly #workers: Worker[] = [];
  readonly #jobs = new Map<number, Job>();
  #next = 0;
  #broken: Error | undefined;

  /** A pool for the index file `file`, a worker per processor (none on a single one: undefined). */
  static start(file: string): AnalyzerPool | undefined {
    const size = Math.min(4, availableParallelism());
    if (size < 2 || file === ':memory:') return undefined;
    try {
      return new AnalyzerPool(size, file);
    } catch {
      return undefined;
    }
  }

  private constructor(size: number, file: string) {
    // TypeScript sources (this repository run as is) need tsx in the worker too; built JavaScript does not.
    // Resolved here: `--import tsx` alone would look for it from the working directory, wherever `parley` runs.
    const execArgv = WORKER_URL.pathname.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [];
    for (let i = 0; i < size; i++) {
      // Loaded here: a search, which never starts workers, need not load worker_threads.
      const { Worker } = process.getBuiltinModule('node:worker_threads');
      const worker = new Worker(WORKER_URL, { execArgv, workerData: { file } });
      worker.unref();
      worker.on('message', ({ id, batch, error }: { id: number; batch?: PreparedBatch; error?: string }) => {
        const job = this.#jobs.get(id);
        this.#jobs.delete(id);
        if (!job) return;
        if (batch) job.resolve(batch);
        else job.reject(new Error(`page analysis failed in a worker: ${error}`));
      });
      worker.on('error', (error) => this.#fail(error));
      worker.on('exit', (code) => code !== 0 && this.#fail(new Error(`a page analysis worker stopped (exit code ${code})`)));
      this.#workers.push(worker);
    }
  }

  #fail(error: Error): void {
    this.#broken ??= error;
    for (const job of this.#jobs.values()) job.reject(error);
    this.#jobs.clear();
  }

  /** Prepares `pages` on the next worker. */
  prepare(pages: KnowledgePageRecord[]): Promise<PreparedBatch> {
    if (this.#broken) return Promise.reject(this.#broken);
    const id = this.#next++;
    const worker = this.#workers[id % this.#workers.length]!;
    return new Promise<PreparedBatch>((resolve, reject) => {
      this.#jobs.set(id, { resolve, reject });
      worker.postMessage({ id, pages });
    });
  }

  async close(): Promise<void> {
    this.#fail(new Error('the analyser pool was closed'));
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }
}
