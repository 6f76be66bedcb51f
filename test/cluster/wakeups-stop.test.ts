// /stop for a turn running on another process arrives as a wake-up (no polling): two apps on one
// PostgreSQL database, each with its own LISTEN connection; the /stop is made on the one that does
// not run the turn, and the turn ends at once on the other.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StopRequest } from '../../src/agent/abort.ts';
import { localWakeups } from '../../src/cluster/wakeups.ts';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { SessionScheduler } from '../../src/gateway/scheduler.ts';
import { silentLogger } from '../../src/log.ts';
import { openStore } from '../../src/store/store.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled, tempDir, waitFor } from '../helpers/harness.ts';
import { adminUrl, freshDatabase } from './pg-database.ts';

describe('/stop wake-ups in the scheduler', () => {
  it('a cancel that arrives before its turn starts here still stops it when it starts', async () => {
    const dir = tempDir();
    const store = await openStore(parseDatabaseUrl(`file:${join(dir, 'parley.db')}`));
    try {
      const wakeups = localWakeups();
      const scheduler = new SessionScheduler({ store, log: silentLogger, wakeups });
      const session = await store.sessions.ensure({ key: 'test:1', channel: 'test', chatId: '1', chatType: 'direct' });
      await wakeups.publish({ kind: 'cancel', turnId: 'turn-early', by: 'Ann' });
      await new Promise((resolve) => setImmediate(resolve));
      let reason: unknown;
      await scheduler.withLease(session.id, async (lease) => {
        const signal = lease.setTurn('turn-early');
        reason = signal.reason;
        expect(signal.aborted).toBe(true);
        // Another turn of the session is not affected.
        expect(lease.setTurn('turn-later').aborted).toBe(false);
      });
      expect(reason).toBeInstanceOf(StopRequest);
      expect((reason as StopRequest).by).toBe('Ann');
      await scheduler.stop(0);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(adminUrl)('/stop across processes', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase('parley_stop');
  });
  afterAll(async () => {
    await closeAll();
    await db?.drop();
  });

  it('stops the turn running on the other process through a wake-up', { timeout: 30_000 }, async () => {
    const model = await FakeModelServer.start();
    // Periodic sweeps off: nothing but the wake-up can reach the running turn.
    const running = await createHarness({ databaseUrl: db.url, model, sweepIntervalMs: 3_600_000 });
    const other = await createHarness({ databaseUrl: db.url, model, sweepIntervalMs: 3_600_000 });
    model.enqueue({ hang: true, text: 'Once upon a time' });
    await running.adapter.say('tell me a long story');
    await waitFor(() => running.adapter.lastBotMessage()?.text.includes('Once upon a time'), 'the story streaming');
    const session = (await other.store.sessions.getByKey('memory:dm-u-alice'))!;
    expect(running.app.scheduler.isBusy(session.id)).toBe(true);
    expect(other.app.scheduler.isBusy(session.id)).toBe(false);

    expect(await other.app.gateway.stopSession(session.id, 'Alice')).toBe(true);
    const [turn] = await settled(running.store, 'memory:dm-u-alice');
    expect(turn!.status).toBe('cancelled');
    await waitFor(() => running.adapter.lastBotMessage()?.text.includes('Stopped (by Alice)'), 'the stop announced where it ran');
    await model.close();
  });
});
