// Long polling while the database is out of reach (PostgreSQL refusing connections): grammY
// confirms an update once its handler returns, whatever happened, so an update that cannot be
// stored is held and retried, the polling loop waiting, instead of confirmed and lost. Once the
// database is back it is stored and answered, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminQuery, adminUrl, freshDatabase } from '../cluster/pg-database.ts';
import { waitFor } from '../helpers/harness.ts';
import { botMessages, closeTelegram, drained, startTelegram } from './helpers.ts';

describe.runIf(adminUrl)('telegram long polling: the database goes away', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase('parley_tg_outage');
  });
  afterAll(async () => {
    await closeTelegram();
    await db.drop();
  });

  it('a message that arrives while the database is away is neither confirmed nor lost, and is answered once it is back', async () => {
    const { tg, h, log } = await startTelegram({ databaseUrl: db.url });
    const name = new URL(db.url).pathname.slice(1);
    const alice = tg.user('Alice', { username: 'alice' });
    const dm = tg.privateChat(alice);
    h.model.enqueue({ text: 'First answer.' });
    tg.say(alice, dm, 'first');
    await botMessages(tg, dm, 1);
    await drained(tg);

    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await adminQuery('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    h.model.enqueue({ text: 'Second answer.' });
    const { update } = tg.say(alice, dm, 'second');
    await waitFor(() => log.lines.some((l) => l.msg?.includes('could not be taken')), 'the update held for a retry', 20_000);
    // Fetched but not confirmed: Telegram would deliver it again to whoever polls next.
    expect(tg.world.queue.map((u) => u.update_id)).toContain(update.update_id);
    expect(log.lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([]);

    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await waitFor(() => tg.botMessages(dm).some((m) => m.message.text === 'Second answer.'), 'the answer to the held message', 40_000);
    await drained(tg);
    expect(tg.botMessages(dm).map((m) => m.message.text)).toEqual(['First answer.', 'Second answer.']);
    expect(h.model.requests.map((r) => r.body.messages.at(-1)?.content)).toEqual(['first', 'second']);
  });
});
