// A starting process frees the session leases of processes that are gone, so their sessions do
// not wait for the leases to expire: all of them when it holds the SQLite runtime lock, only those
// of dead pids on this host (and earlier lives of its own pid) when others may share the database.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { isDeadOwner, newLeaseOwner, parseLeaseOwner, reclaimStaleLeases, thisProcess } from '../../src/gateway/lease-owner.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/harness.ts';

const HOST = hostname();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function node(code: string): ChildProcess {
  return spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
}

async function deadPid(): Promise<number> {
  const child = node('');
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

function livePid(): number {
  const child = node('setInterval(() => {}, 1000)');
  cleanups.push(() => void child.kill('SIGKILL'));
  return child.pid!;
}

async function leased(store: Store, owners: string[]) {
  const ids: string[] = [];
  for (const [i, owner] of owners.entries()) {
    const session = await store.sessions.ensure({ key: `test:${i}`, channel: 'test', chatId: String(i), chatType: 'direct' });
    expect(await store.sessions.acquireLease(session.id, owner, 60_000)).toBe(true);
    ids.push(session.id);
  }
  return ids;
}

function reclaimScenarios(databaseUrl: () => Promise<string>) {
  it('shared database: frees the leases of dead pids on this host and of earlier lives of its own pid, nothing else', async () => {
    const store = await openStore(parseDatabaseUrl(await databaseUrl()));
    cleanups.push(() => store.close());
    const self = newLeaseOwner();
    const dead = `${HOST}:${await deadPid()}:aaaa1111`;
    const earlierLife = `${HOST}:${process.pid}:cccc3333`;
    const live = `${HOST}:${livePid()}:bbbb2222`;
    const elsewhere = `elsewhere.example:${await deadPid()}:dddd4444`;
    const [deadSession, , liveSession] = await leased(store, [dead, earlierLife, live, elsewhere, self, 'not-an-owner']);
    const turn = await store.turns.create({
      sessionId: deadSession!,
      epoch: 0,
      origin: { chat: { channel: 'test', chatId: '0', chatType: 'direct' }, requester: { id: 'u', displayName: 'U' } },
    });
    expect((await store.turns.orphaned()).map((t) => t.id)).not.toContain(turn.id);

    expect(await reclaimStaleLeases(store, { exclusive: false, self: thisProcess(self) })).toBe(2);
    expect((await store.sessions.leaseOwners()).sort()).toEqual([live, elsewhere, self, 'not-an-owner'].sort());
    // The dead process's turn is now up for continuation, and its session can be taken at once.
    expect((await store.turns.orphaned()).map((t) => t.id)).toContain(turn.id);
    expect(await store.sessions.acquireLease(deadSession!, newLeaseOwner(), 60_000)).toBe(true);
    expect(await store.sessions.acquireLease(liveSession!, newLeaseOwner(), 60_000)).toBe(false);
  });

  it('sole runtime (exclusive): frees every lease but its own', async () => {
    const store = await openStore(parseDatabaseUrl(await databaseUrl()));
    cleanups.push(() => store.close());
    const self = newLeaseOwner();
    await leased(store, [`${HOST}:${livePid()}:bbbb2222`, `elsewhere.example:1:dddd4444`, 'not-an-owner', self]);
    expect(await reclaimStaleLeases(store, { exclusive: true, self: thisProcess(self) })).toBe(3);
    expect(await store.sessions.leaseOwners()).toEqual([self]);
  });
}

describe('lease owners', () => {
  it('parses host:pid:random, hosts with colons included, and rejects anything else', () => {
    expect(parseLeaseOwner('box-1:4242:0a1b2c3d')).toEqual({ host: 'box-1', pid: 4242 });
    expect(parseLeaseOwner('fe80::1:77:ff')).toEqual({ host: 'fe80::1', pid: 77 });
    for (const bad of ['', 'box', 'box:12', 'box:0:ab', 'box:-3:ab', 'box:12:xyz', ':12:ab']) expect(parseLeaseOwner(bad)).toBeUndefined();
    expect(parseLeaseOwner(newLeaseOwner('h', 9))).toEqual({ host: 'h', pid: 9 });
  });

  it('is dead only when on this host and its pid does not run, or it has our pid without being us', () => {
    const self = { host: 'h', pid: 10, owner: 'h:10:aaaa', isRunning: (pid: number) => pid === 20 };
    expect(isDeadOwner('h:30:bbbb', self)).toBe(true);
    expect(isDeadOwner('h:10:bbbb', self)).toBe(true);
    expect(isDeadOwner('h:10:aaaa', self)).toBe(false);
    expect(isDeadOwner('h:20:bbbb', self)).toBe(false);
    expect(isDeadOwner('other:30:bbbb', self)).toBe(false);
    expect(isDeadOwner('garbage', self)).toBe(false);
  });
});

describe('reclaiming stale leases on SQLite', () => {
  reclaimScenarios(async () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return `file:${join(dir, 'parley.db')}`;
  });
});

const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;

describe.runIf(adminUrl)('reclaiming stale leases on PostgreSQL', () => {
  const databases: string[] = [];
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  afterAll(async () => {
    for (const name of databases) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  reclaimScenarios(async () => {
    const name = `parley_test_${randomBytes(4).toString('hex')}`;
    await admin(`CREATE DATABASE ${name}`);
    databases.push(name);
    const url = new URL(adminUrl!);
    url.pathname = `/${name}`;
    return url.toString();
  });
});
