// Receiver leases on both backends: one holder at a time, the fencing token grows on every change
// of holder, an expired lease or a holder without a process row is taken over, a release frees it;
// a leader starts its receiver when it holds the lease and stops it when another process took it.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReceiverLeader } from '../../src/cluster/receiver-leader.ts';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import type { ExclusiveReceiver } from '../../src/core/types.ts';
import { silentLogger } from '../../src/log.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/harness.ts';
import { adminUrl, freshDatabase } from './pg-database.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, seconds));

async function alive(store: Store, owner: string, now: Date): Promise<void> {
  await store.processes.beat({ owner, host: 'h', pid: 1, startedAt: now, channels: ['telegram'] }, now);
}

/** A leader with a lease of a minute and a beat of 20 s (ticked by hand in these tests). */
function leaderOf(store: Store, id: string, owner: string, receiver: ExclusiveReceiver): ReceiverLeader {
  return new ReceiverLeader({
    id,
    owner,
    repo: store.receivers,
    leaseMs: 60_000,
    beatMs: 20_000,
    force: false,
    log: silentLogger,
    receiver,
  });
}

function scenarios(databaseUrl: () => Promise<string>) {
  async function open(): Promise<Store> {
    const store = await openStore(parseDatabaseUrl(await databaseUrl()));
    cleanups.push(() => store.close());
    return store;
  }

  it('one holder at a time; takeover after expiry or when the holder has no process row; token +1 each change', async () => {
    const store = await open();
    await alive(store, 'a:1:aa', at(0));
    await alive(store, 'b:2:bb', at(0));
    const claim = (owner: string, s: number) => store.receivers.claim({ receiver: 'telegram', owner, now: at(s), leaseUntil: at(s + 6) });
    expect(await claim('a:1:aa', 0)).toBe(1);
    expect(await claim('b:2:bb', 1)).toBeUndefined();
    expect(await claim('a:1:aa', 2)).toBe(1);
    expect(await claim('b:2:bb', 9)).toBe(2); // a's lease ran out at 8
    expect(await claim('a:1:aa', 10)).toBeUndefined();
    await store.processes.remove('b:2:bb');
    expect(await claim('a:1:aa', 11)).toBe(3); // b is gone although its lease runs to 15
    await store.receivers.release('telegram', 'a:1:aa');
    expect(await claim('b:2:bb', 12)).toBe(4);
    const [row] = await store.receivers.list();
    expect(row).toMatchObject({ receiver: 'telegram', owner: 'b:2:bb', token: 4 });
  });

  it('the holder stores its resumable state with the lease; others cannot; a takeover reads it', async () => {
    const store = await open();
    await alive(store, 'a:1:aa', at(0));
    await alive(store, 'b:2:bb', at(0));
    const claim = (owner: string, s: number, state?: string) =>
      store.receivers.claim({ receiver: 'discord', owner, now: at(s), leaseUntil: at(s + 6), ...(state ? { state } : {}) });
    expect(await claim('a:1:aa', 0)).toBe(1);
    expect(await store.receivers.state('discord')).toBeUndefined();
    expect(await claim('a:1:aa', 1, '{"seq":1}')).toBe(1);
    expect(await claim('b:2:bb', 2, '{"seq":99}')).toBeUndefined();
    expect(await claim('a:1:aa', 3)).toBe(1); // no state this beat: the stored one stays
    expect(await store.receivers.state('discord')).toBe('{"seq":1}');
    expect(await claim('b:2:bb', 10, '{"seq":99}')).toBe(2); // taken over: the old holder's state stays
    expect(await store.receivers.state('discord')).toBe('{"seq":1}');
    expect(await claim('b:2:bb', 11, '{"seq":2}')).toBe(2);
    expect(await store.receivers.state('discord')).toBe('{"seq":2}');
    await store.receivers.release('discord', 'b:2:bb');
    expect(await store.receivers.state('discord')).toBeUndefined();
  });

  it('a leader runs its receiver only while it holds the lease, and gives it up on stop', async () => {
    const store = await open();
    await alive(store, 'a:1:aa', new Date());
    await alive(store, 'b:2:bb', new Date());
    const events: string[] = [];
    const leader = (owner: string) =>
      leaderOf(store, 'telegram', owner, {
        start: async () => void events.push(`${owner} start`),
        stop: async () => void events.push(`${owner} stop`),
      });
    const a = leader('a:1:aa');
    const b = leader('b:2:bb');
    await a.tick(new Date());
    await b.tick(new Date());
    await a.tick(new Date());
    expect(events).toEqual(['a:1:aa start']);
    expect([a.receiving, b.receiving, a.token]).toEqual([true, false, 1]);
    await a.stop();
    await b.tick(new Date());
    expect(events).toEqual(['a:1:aa start', 'a:1:aa stop', 'b:2:bb start']);
    expect(b.token).toBe(2);
    await b.stop();
  });

  it('a leader records the session its receiver just made at once, not at its next beat', async () => {
    const store = await open();
    await alive(store, 'a:1:aa', new Date());
    let session: string | undefined;
    const leader = leaderOf(store, 'discord', 'a:1:aa', {
      start: async () => {
        session = '{"sessionId":"s1","sequence":3}';
      },
      stop: async () => {},
      state: () => session,
    });
    await leader.tick(new Date());
    // A process dying now leaves the session for the next holder to resume.
    expect(await store.receivers.state('discord')).toBe('{"sessionId":"s1","sequence":3}');
    expect(leader.token).toBe(1);
    await leader.stop();
  });
}

describe('receiver leases on SQLite', () => {
  scenarios(async () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return `file:${join(dir, 'parley.db')}`;
  });
});

describe.runIf(adminUrl)('receiver leases on PostgreSQL', () => {
  scenarios(async () => {
    const db = await freshDatabase('parley_receivers');
    cleanups.push(() => db.drop());
    return db.url;
  });
});
