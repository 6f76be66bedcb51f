// Runs store operations in a worker thread: a separate event loop with its own database
// connection, like a second Parley process. Used to race two "processes" on one SQLite file.
import { parentPort, workerData } from 'node:worker_threads';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { ApprovalService } from '../../src/approvals/service.ts';
import { silentLogger } from '../../src/log.ts';
import { openStore } from '../../src/store/store.ts';

export type WorkerJob =
  | { op: 'acquireLease'; sessionId: string; owner: string }
  | { op: 'decide'; token: string; actor: { id: string; displayName: string; channel: string }; choice: 'approve' | 'deny' };

const { databaseUrl, job, barrier } = workerData as { databaseUrl: string; job: WorkerJob; barrier: SharedArrayBuffer };
const store = await openStore(parseDatabaseUrl(databaseUrl));
const flag = new Int32Array(barrier);
// Wait until every worker is ready, then go at once.
Atomics.add(flag, 1, 1);
while (Atomics.load(flag, 0) === 0) Atomics.wait(flag, 0, 0, 5);
let result: unknown;
if (job.op === 'acquireLease') {
  result = await store.sessions.acquireLease(job.sessionId, job.owner, 60_000);
} else {
  const approvals = new ApprovalService({ store, adapters: new Map(), admins: [], log: silentLogger, resume: async () => {} });
  result = await approvals.decide(job.token, job.actor, job.choice);
}
await store.close();
parentPort!.postMessage(result);
