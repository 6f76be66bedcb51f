// A message's turn started together with its session's lease (SessionScheduler.startFresh) never
// runs beside other work on that session in this process: a worker that takes the lease while the
// start is being written (re-entrant for this process) leaves the session to it, and a start for
// a session this process is working on writes nothing (the message is then queued).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { SessionScheduler } from '../../src/gateway/scheduler.ts';
import { silentLogger } from '../../src/log.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/harness.ts';
import { testInbound } from '../store/backends.ts';

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = tempDir('parley-fresh-');
  store = await openStore(parseDatabaseUrl(`file:${join(dir, 'parley.db')}`));
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const origin = { chat: { channel: 'test', chatId: 'c', chatType: 'direct' as const }, requester: { id: 'u1', displayName: 'Alice' } };

const fromMessage = (key: string, eventId: string) => (owner: string, leaseMs: number) =>
  store.turnStart.fromMessage({ key, inbound: testInbound(eventId, 'hello'), owner, leaseMs, origin, content: 'hello' });

describe('starting a turn with its lease', () => {
  it('a worker that takes the lease while the start is written leaves the session to the start', async () => {
    const scheduler = new SessionScheduler({ store, log: silentLogger, leaseMs: 60_000 });
    const session = await store.sessions.ensure({ key: 'fresh-1', channel: 'test', chatId: 'c', chatType: 'direct' });
    let worker: Promise<{ worked: boolean }> | undefined;
    let workerRan = false;
    const started = await scheduler.startFresh('fresh-1', async (owner, leaseMs) => {
      const taken = await fromMessage('fresh-1', 'e1')(owner, leaseMs);
      // The start is written (the lease is this process's in the database) but not running yet.
      worker = scheduler.withLeaseThenLook(session.id, async () => {
        workerRan = true;
      });
      await worker;
      return taken;
    });
    expect(await worker).toEqual({ worked: false });
    expect(workerRan).toBe(false);
    if (!started || started === 'duplicate') throw new Error(`not started: ${started}`);
    expect(scheduler.isBusy(session.id)).toBe(true);
    let ran = false;
    const look = await started.run(async (lease) => {
      expect(lease.state.session.id).toBe(session.id);
      ran = true;
    });
    expect(ran).toBe(true);
    // Released afterwards: the look shows the turn the start began (nobody has finished it here).
    expect(look).toMatchObject({ worked: true, after: { active: { id: started.turn.id, status: 'running' } } });
    expect(scheduler.isBusy(session.id)).toBe(false);
    expect(await store.sessions.leaseOwners()).toEqual([]);
  });

  it('a start for a session this process is working on writes nothing', async () => {
    const scheduler = new SessionScheduler({ store, log: silentLogger, leaseMs: 60_000 });
    const session = await store.sessions.ensure({ key: 'fresh-2', channel: 'test', chatId: 'c2', chatType: 'direct' });
    let during: unknown;
    const look = await scheduler.withLeaseThenLook(session.id, async () => {
      during = await scheduler.startFresh('fresh-2', fromMessage('fresh-2', 'f1'));
    });
    expect(look.worked).toBe(true);
    expect(during).toBeUndefined();
    expect(await store.turns.list({ sessionId: session.id })).toEqual([]);
    expect(await store.inbound.record(testInbound('f1', 'hello'), session.id, 'queued')).toBe(true);
  });

  it('of two starts at once for one chat in one process, one starts and the other writes nothing', async () => {
    const scheduler = new SessionScheduler({ store, log: silentLogger, leaseMs: 60_000 });
    const session = await store.sessions.ensure({ key: 'fresh-3', channel: 'test', chatId: 'c3', chatType: 'direct' });
    const [a, b] = await Promise.all([
      scheduler.startFresh('fresh-3', fromMessage('fresh-3', 'g1')),
      scheduler.startFresh('fresh-3', fromMessage('fresh-3', 'g2')),
    ]);
    expect([a, b].filter((r) => r && r !== 'duplicate')).toHaveLength(1);
    expect([a, b].filter((r) => r === undefined)).toHaveLength(1);
    const winner = (a ?? b) as Exclude<typeof a, 'duplicate' | undefined>;
    await winner.run(async () => {});
    expect(await store.turns.list({ sessionId: session.id })).toHaveLength(1);
  });
  it("a lease released by its turn's end is the worker's look, is not released again, and frees the session here at once", async () => {
    const scheduler = new SessionScheduler({ store, log: silentLogger, leaseMs: 60_000 });
    const session = await store.sessions.ensure({ key: 'fresh-4', channel: 'test', chatId: 'c4', chatType: 'direct' });
    await store.inbound.record(testInbound('h0', 'hello'), session.id, 'queued');
    let next: Promise<unknown> | undefined;
    let finishNext = () => {};
    const look = await scheduler.withLeaseThenLook(session.id, async () => {
      const { turn } = (await store.turns.startWithQueued({ sessionId: session.id, epoch: 0, origin }))!;
      await store.inbound.record(testInbound('h1', 'hello'), session.id, 'queued');
      const message = { sessionId: session.id, epoch: 0, turnId: turn.id, role: 'assistant' as const, content: 'done' };
      const ended = await store.turns.endRound({
        turnId: turn.id,
        usage: undefined,
        message,
        finish: 'done',
        releaseLeaseOf: scheduler.owner,
      });
      scheduler.releasedWith(session.id, ended.released!);
      expect(scheduler.isBusy(session.id)).toBe(false);
      // The next worker takes the session while this one is still finishing.
      next = scheduler.withLeaseThenLook(session.id, () => new Promise<void>((resolve) => (finishNext = resolve)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(scheduler.isBusy(session.id)).toBe(true);
    });
    expect(look).toMatchObject({ worked: true, after: { session: { id: session.id } } });
    expect(look.worked && JSON.parse(look.after!.queuedPayload!)).toMatchObject({ eventId: 'h1' });
    // The first worker's end left the next one's hold alone.
    expect(scheduler.isBusy(session.id)).toBe(true);
    expect(await store.sessions.leaseOwners()).toEqual([scheduler.owner]);
    finishNext();
    expect(await next).toMatchObject({ worked: true });
    expect(await store.sessions.leaseOwners()).toEqual([]);
  });
});
