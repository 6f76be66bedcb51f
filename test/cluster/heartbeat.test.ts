// The process heartbeat on both backends: one row per process, all session leases extended in one
// statement, tasks run each beat, the row removed on stop; processes that stopped beating are
// reaped by another process, which frees their leases and wakes everyone.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Heartbeat } from '../../src/cluster/heartbeat.ts';
import { reaper } from '../../src/cluster/reaper.ts';
import { localWakeups, type WakeupEvent } from '../../src/cluster/wakeups.ts';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { newLeaseOwner } from '../../src/gateway/lease-owner.ts';
import { silentLogger } from '../../src/log.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { adminUrl, freshDatabase } from './pg-database.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function session(store: Store, key: string): Promise<string> {
  return (await store.sessions.ensure({ key, channel: 'test', chatId: key, chatType: 'direct' })).id;
}

function heartbeatOf(store: Store, owner: string, now: () => Date, renewLeases = async (_now: Date) => {}): Heartbeat {
  return new Heartbeat({
    owner,
    processes: store.processes,
    renewLeases,
    log: silentLogger,
    intervalMs: 60_000,
    channels: () => ['telegram'],
    now,
  });
}

function scenarios(databaseUrl: () => Promise<string>) {
  async function open(): Promise<Store> {
    const store = await openStore(parseDatabaseUrl(await databaseUrl()));
    cleanups.push(() => store.close());
    return store;
  }

  it('a beat upserts the process row and runs the registered tasks; stop removes the row', async () => {
    const store = await open();
    const owner = newLeaseOwner();
    let clock = new Date('2026-11-23T10:00:00Z');
    const renewed: Date[] = [];
    const heartbeat = heartbeatOf(
      store,
      owner,
      () => clock,
      async (now) => void renewed.push(now),
    );
    const ran: Date[] = [];
    const off = heartbeat.onBeat(async (now) => void ran.push(now));
    await heartbeat.start();
    clock = new Date('2026-11-23T10:00:02Z');
    await heartbeat.beat();
    off();
    await heartbeat.beat();
    expect(ran).toHaveLength(2);
    expect(renewed).toHaveLength(3);
    const [row] = await store.processes.list();
    expect(row).toMatchObject({ owner, pid: process.pid, channels: ['telegram'] });
    expect(row!.heartbeatAt.getTime()).toBe(clock.getTime());
    expect(row!.startedAt.getTime()).toBe(new Date('2026-11-23T10:00:00Z').getTime());
    await heartbeat.stop();
    expect(await store.processes.list()).toEqual([]);
  });

  it('a slow task does not hold up the next beats: they renew the leases and leave the tasks out', async () => {
    const store = await open();
    const renewed: Date[] = [];
    const heartbeat = heartbeatOf(
      store,
      newLeaseOwner(),
      () => new Date(),
      async (now) => void renewed.push(now),
    );
    await heartbeat.start();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    heartbeat.onBeat(async () => {
      calls++;
      await gate;
    });
    void heartbeat.beat();
    await waitFor(() => calls === 1, 'the slow task running');
    const before = renewed.length;
    void heartbeat.beat();
    await waitFor(() => renewed.length === before + 1, 'the next beat renewing anyway');
    expect(calls).toBe(1);
    release();
    await heartbeat.beat();
    expect(calls).toBe(2);
    await heartbeat.stop();
  });

  it('extends every lease the process holds in one statement, and only its own', async () => {
    const store = await open();
    const mine = newLeaseOwner();
    const other = newLeaseOwner();
    const [a, b, c] = [await session(store, 'a'), await session(store, 'b'), await session(store, 'c')];
    for (const id of [a, b]) expect(await store.sessions.acquireLease(id, mine, 1)).toBe(true);
    expect(await store.sessions.acquireLease(c, other, 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await store.sessions.renewLeasesOf(mine, new Date(Date.now() + 60_000))).toBe(2);
    // Mine are extended (nobody else may take them); the other one has run out.
    expect(await store.sessions.acquireLease(a, other, 60_000)).toBe(false);
    expect(await store.sessions.acquireLease(b, other, 60_000)).toBe(false);
    expect(await store.sessions.acquireLease(c, mine, 60_000)).toBe(true);
  });

  it('a process that stopped beating is reaped by another: its leases freed, everyone woken, once', async () => {
    const store = await open();
    const dead = newLeaseOwner();
    const alive = newLeaseOwner();
    const start = Date.now();
    let clock = new Date(start);
    const deadBeat = heartbeatOf(store, dead, () => clock);
    await deadBeat.start();
    const held = await session(store, 'held');
    expect(await store.sessions.acquireLease(held, dead, 6_000)).toBe(true);

    const wakeups = localWakeups();
    const events: WakeupEvent[] = [];
    wakeups.subscribe((event) => void events.push(event));
    const aliveBeat = heartbeatOf(store, alive, () => clock);
    aliveBeat.onBeat(reaper({ store, wakeups, log: silentLogger, staleMs: 6_000 }));
    await aliveBeat.start();
    expect(events).toEqual([]);
    expect((await store.processes.list()).map((p) => p.owner).sort()).toEqual([dead, alive].sort());

    // 7 s later only the live process has beaten: the dead one is past the 6 s bound.
    clock = new Date(start + 7_000);
    await aliveBeat.beat();
    expect((await store.processes.list()).map((p) => p.owner)).toEqual([alive]);
    expect(await store.sessions.leaseOwners()).toEqual([]);
    await waitFor(() => events.length === 1, 'the gone wake-up');
    expect(events[0]).toEqual({ kind: 'gone', owners: [dead] });
    await aliveBeat.beat();
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toHaveLength(1);
  });
}

describe('heartbeat on SQLite', () => {
  scenarios(async () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return `file:${join(dir, 'parley.db')}`;
  });
});

describe.runIf(adminUrl)('heartbeat on PostgreSQL', () => {
  scenarios(async () => {
    const db = await freshDatabase('parley_heartbeat');
    cleanups.push(() => db.drop());
    return db.url;
  });
});
