// Who holds a session lease, and how a starting process frees leases left by processes that are
// gone (kill -9, a crash, a power cut) instead of waiting for them to expire.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Store } from '../store/store.ts';

export interface LeaseOwner {
  host: string;
  pid: number;
}

export interface ThisProcess {
  host: string;
  pid: number;
  /** This process's own lease owner (never reclaimed). */
  owner: string;
  /** Whether a process with this pid runs on this host. */
  isRunning(pid: number): boolean;
}

/** `host:pid:random` — the random part tells two lives of one pid apart. */
export function newLeaseOwner(host = hostname(), pid = process.pid): string {
  return `${host}:${pid}:${randomBytes(4).toString('hex')}`;
}

export function parseLeaseOwner(owner: string): LeaseOwner | undefined {
  const match = /^(.+):(\d+):[0-9a-f]+$/.exec(owner);
  if (!match) return undefined;
  const pid = Number(match[2]);
  return Number.isSafeInteger(pid) && pid > 0 ? { host: match[1]!, pid } : undefined;
}

function pidIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This process, owning leases as `owner`. */
export function thisProcess(owner: string): ThisProcess {
  return { host: hostname(), pid: process.pid, owner, isRunning: pidIsRunning };
}

/**
 * True when the owner is certainly gone: it ran on this host and its pid no longer runs, or it
 * has our pid without being us (a previous life of this pid, e.g. pid 1 in a restarted
 * container). Owners on other hosts are left to expire.
 */
export function isDeadOwner(owner: string, self: ThisProcess): boolean {
  const parsed = parseLeaseOwner(owner);
  if (!parsed || parsed.host !== self.host || owner === self.owner) return false;
  return parsed.pid === self.pid || !self.isRunning(parsed.pid);
}

/**
 * Frees leases that cannot belong to a live process, so a restarted bot picks its sessions up at
 * once. `exclusive`: this process holds the database's runtime lock (SQLite), so no other runtime
 * exists and every lease but its own is stale.
 */
export async function reclaimStaleLeases(store: Store, options: { exclusive: boolean; self: ThisProcess }): Promise<number> {
  const owners = await store.sessions.leaseOwners();
  const stale = owners.filter((owner) => owner !== options.self.owner && (options.exclusive || isDeadOwner(owner, options.self)));
  return store.sessions.releaseLeasesOf(stale);
}
