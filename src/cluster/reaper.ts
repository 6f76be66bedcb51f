// A heartbeat task: processes that stopped beating (kill -9, a lost host) are removed, their
// session leases freed at once and everyone woken so that the turns they left are continued.
// Every process runs it; the DELETE hands each dead process to exactly one of them.
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { Wakeups } from './wakeups.ts';

export interface ReaperOptions {
  store: Store;
  wakeups: Wakeups;
  log: Logger;
  /** A process silent this long is dead (its leases have run out by then too). */
  staleMs: number;
}

export function reaper(options: ReaperOptions): (now: Date) => Promise<void> {
  return async (now) => {
    const { store, wakeups, log } = options;
    const gone = await store.processes.reap(new Date(now.getTime() - options.staleMs));
    if (gone.length === 0) return;
    const freed = await store.sessions.releaseLeasesOf(gone);
    log.warn({ gone, freed }, 'processes stopped beating; their sessions are taken over');
    await wakeups.publish({ kind: 'gone', owners: gone });
  };
}
