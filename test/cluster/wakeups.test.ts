// Wake-ups: LISTEN/NOTIFY between processes on PostgreSQL (here two listeners in one test process,
// each with its own connection, as two processes would have), the in-process emitter on SQLite.
import { createServer, type Server, type Socket, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localWakeups, parseWakeup, type WakeupEvent } from '../../src/cluster/wakeups.ts';
import { PgWakeups, WAKEUP_CHANNEL } from '../../src/cluster/wakeups-pg.ts';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { silentLogger } from '../../src/log.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { waitFor } from '../helpers/harness.ts';
import { adminQuery, adminUrl, freshDatabase } from './pg-database.ts';

/** A TCP proxy to PostgreSQL that can go silent: connections stay open, nothing passes (a network cut). */
async function silentableProxy(target: URL): Promise<{ url: string; silent: boolean; close(): void }> {
  const sockets: Socket[] = [];
  const state = { silent: false };
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.push(client, upstream);
    client.on('data', (chunk) => void (state.silent || upstream.write(chunk)));
    upstream.on('data', (chunk) => void (state.silent || client.write(chunk)));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const via = new URL(target);
  via.hostname = '127.0.0.1';
  via.port = String((server.address() as { port: number }).port);
  return {
    url: via.toString(),
    get silent() {
      return state.silent;
    },
    set silent(value: boolean) {
      state.silent = value;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

function recorder() {
  const events: WakeupEvent[] = [];
  return { events, handler: (event: WakeupEvent) => void events.push(event) };
}

describe('wake-up payloads', () => {
  it('accepts the known kinds and ignores anything else', () => {
    expect(parseWakeup('{"kind":"cancel","turnId":"t1","by":"Ann"}')).toEqual({ kind: 'cancel', turnId: 't1', by: 'Ann' });
    expect(parseWakeup('{"kind":"gone","owners":["h:1:ab"]}')).toEqual({ kind: 'gone', owners: ['h:1:ab'] });
    for (const junk of [undefined, '', 'not json', '{"kind":"cancel"}', '{"kind":"resync"}', '[1]', 'null']) {
      expect(parseWakeup(junk)).toBeUndefined();
    }
  });

  it('one process (SQLite): subscribers hear every wake-up, after the publisher has moved on', async () => {
    const wakeups = localWakeups();
    const a = recorder();
    const b = recorder();
    wakeups.subscribe(a.handler);
    const unsubscribe = wakeups.subscribe(b.handler);
    await wakeups.publish({ kind: 'approval', expiresAt: 5 });
    expect(a.events).toEqual([]);
    await waitFor(() => a.events.length === 1 && b.events.length === 1, 'both subscribers');
    unsubscribe();
    await wakeups.publish({ kind: 'gone', owners: ['x:1:ab'] });
    await waitFor(() => a.events.length === 2, 'the remaining subscriber');
    expect(b.events).toHaveLength(1);
  });
});

describe.runIf(adminUrl)('wake-ups over PostgreSQL LISTEN/NOTIFY', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let store: Store;
  const started: PgWakeups[] = [];

  function listener(safetyPollMs = 60_000): PgWakeups {
    const wakeups = new PgWakeups({
      url: db.url,
      notify: (channel, payload) => store.processes.notify(channel, payload),
      log: silentLogger,
      safetyPollMs,
      maxBackoffMs: 200,
    });
    started.push(wakeups);
    return wakeups;
  }

  beforeAll(async () => {
    db = await freshDatabase('parley_wakeups');
    store = await openStore(parseDatabaseUrl(db.url));
  });
  afterAll(async () => {
    for (const wakeups of started) await wakeups.stop();
    await store?.close();
    await db?.drop();
  });

  it('a wake-up published by one process reaches every listening process, its own included', async () => {
    const one = listener();
    const two = listener();
    const a = recorder();
    const b = recorder();
    one.subscribe(a.handler);
    two.subscribe(b.handler);
    await one.start();
    await two.start();
    await two.publish({ kind: 'cancel', turnId: 'turn-1', by: 'Ann' });
    await waitFor(() => a.events.length === 1 && b.events.length === 1, 'the notification on both listeners');
    expect(a.events[0]).toEqual({ kind: 'cancel', turnId: 'turn-1', by: 'Ann' });
    expect(b.events[0]).toEqual(a.events[0]);
    // Junk on the channel (another program, an older version) is ignored.
    await adminQuery('SELECT pg_notify($1, $2)', [WAKEUP_CHANNEL, '{"kind":"nonsense"}'], db.url);
    await one.publish({ kind: 'approval', expiresAt: 42 });
    await waitFor(() => a.events.length === 2, 'the next notification');
    expect(a.events[1]).toEqual({ kind: 'approval', expiresAt: 42 });
  });

  it('a listener whose connection dies reconnects, resyncs once, and hears later wake-ups', async () => {
    const one = listener(100);
    const a = recorder();
    one.subscribe(a.handler);
    await one.start();
    expect(one.connected).toBe(true);
    const killed = await adminQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN ${WAKEUP_CHANNEL}'`,
      [],
      db.url,
    );
    expect(killed.length).toBeGreaterThan(0);
    await waitFor(() => a.events.some((event) => event.kind === 'resync') && one.connected, 'a resync after reconnecting');
    await listener().publish({ kind: 'gone', owners: ['h:1:ab'] });
    await waitFor(() => a.events.some((event) => event.kind === 'gone'), 'a wake-up after the reconnect');
  });

  it('the heartbeat check replaces a listener whose connection went silent (a network cut)', { timeout: 30_000 }, async () => {
    const proxy = await silentableProxy(new URL(db.url));
    const cut = new PgWakeups({ url: proxy.url, notify: async () => {}, log: silentLogger, safetyPollMs: 50, maxBackoffMs: 100 });
    started.push(cut);
    const a = recorder();
    cut.subscribe(a.handler);
    await cut.start();
    expect(cut.connected).toBe(true);
    await cut.check();
    expect(cut.connected).toBe(true);
    proxy.silent = true;
    // Nothing errors by itself: the check's round trip times out and the listener is replaced.
    await cut.check();
    expect(cut.connected).toBe(false);
    await waitFor(() => a.events.some((event) => event.kind === 'resync'), 'safety resyncs while cut off');
    proxy.silent = false;
    await waitFor(() => cut.connected, 'the reconnect once the network is back', 15_000);
    await cut.stop();
    proxy.close();
  });

  it('while the database refuses connections, the safety resync fires; none once connected again', async () => {
    const { url, drop } = await freshDatabase('parley_wakeups_down');
    const name = new URL(url).pathname.slice(1);
    const down = new PgWakeups({ url, notify: async () => {}, log: silentLogger, safetyPollMs: 50, maxBackoffMs: 100 });
    started.push(down);
    const a = recorder();
    down.subscribe(a.handler);
    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await down.start();
    expect(down.connected).toBe(false);
    await waitFor(() => a.events.filter((event) => event.kind === 'resync').length >= 3, 'safety resyncs while disconnected');
    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await waitFor(() => down.connected, 'the reconnect');
    const after = a.events.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // At most the one resync that a reconnect emits; the safety poll has stopped.
    expect(a.events.length - after).toBeLessThanOrEqual(1);
    await down.stop();
    await drop();
  });
});
