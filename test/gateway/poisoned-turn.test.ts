// A turn whose writes the database refuses every time must not be run and answered again and
// again: a turn left running is continued a bounded number of times (counted in the database, so
// restarts do not reset it), then it fails with a clear message. And model output the database
// cannot store as is (NUL characters on PostgreSQL) is made storable instead of failing the turn.
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { OutboundMessage, SentRef } from '../../src/core/types.ts';
import { MemoryAdapter } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

/** Like Telegram's adapter, an edit to exactly the text a message shows succeeds (the fake refuses it). */
class TelegramLikeAdapter extends MemoryAdapter {
  override async edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    if (message.buttons === undefined && this.messages.get(ref.messageId)?.text === message.text) return;
    return super.edit(ref, message);
  }
}

describe('a turn the database keeps refusing', () => {
  it('is continued at most 3 times, then fails with a clear message, in one chat message', async () => {
    const chat = new TelegramLikeAdapter();
    const h = await createHarness({ adapters: [chat] });
    // The database refuses to store this marker in a turn's error, the way PostgreSQL refuses a NUL
    // character: the turn cannot be marked failed with the model's error, so it stays running.
    const raw = new Database(h.dbFile);
    raw.exec(`CREATE TRIGGER poison_turn BEFORE UPDATE ON "Turn" WHEN NEW.error LIKE '%POISON%'
      BEGIN SELECT RAISE(ABORT, 'refused'); END;`);
    raw.close();
    let runs = 0;
    h.model.setFallback(() => ({ status: 400, body: { error: { message: `POISON request ${++runs}`, type: 'invalid_request_error' } } }));

    await chat.say('hello');
    const [turn] = await settled(h.store, 'memory:dm-u-alice', 20_000);
    expect(turn).toMatchObject({ status: 'failed', error: 'Gave up: continued 3 times without finishing' });
    // The first run and three recoveries; the fourth recovery gives up without asking the model.
    // (Before, the turn was run again on every sweep, for ever: 179 model requests in 6 s.)
    expect(h.model.requests).toHaveLength(4);
    await h.app.gateway.sweep();
    await h.app.gateway.sweep();
    expect(h.model.requests).toHaveLength(4);
    await waitFor(() => chat.lastBotMessage()?.text.includes('I could not finish this answer'), 'the failure message');
    // Each run continued the same chat message.
    expect(chat.botMessages()).toHaveLength(1);
    expect(chat.lastBotMessage()!.text).toBe(
      'I could not finish this answer: it was interrupted several times in the same place, so I stopped trying. Please ask me again.',
    );

    // The session is usable again.
    h.model.setFallback(() => ({ text: 'Fine now.' }));
    await chat.say('again');
    await waitFor(() => chat.lastBotMessage()?.text === 'Fine now.', 'the next answer');
  });
});

const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;

describe.runIf(adminUrl)('model output with NUL characters on PostgreSQL', () => {
  const database = `parley_test_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  afterAll(() => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));

  it('is stored without them, and the turn is answered once', async () => {
    await admin(`CREATE DATABASE ${database}`);
    const url = new URL(adminUrl!);
    url.pathname = `/${database}`;
    const h = await createHarness({ databaseUrl: url.toString() });
    h.model.enqueue({ text: 'hello\u0000world' });
    await h.adapter.say('hi');
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn).toMatchObject({ status: 'done' });
    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    expect((await h.store.messages.history(session.id, 0)).map((m) => m.content)).toEqual(['hi', 'helloworld']);
    expect(h.model.requests).toHaveLength(1);
    await waitFor(() => h.adapter.lastBotMessage()?.text.startsWith('hello'), 'the answer');
    expect(h.adapter.botMessages()).toHaveLength(1);
    await h.stop();
  });

  it('a model error quoting a NUL fails the turn once (before: run again on every sweep, for ever)', async () => {
    const url = new URL(adminUrl!);
    url.pathname = `/${database}`;
    const h = await createHarness({ databaseUrl: url.toString() });
    h.model.setFallback(() => ({ status: 400, body: { error: { message: 'bad\u0000request', type: 'invalid_request_error' } } }));
    await h.adapter.say('hi', { from: { id: 'u-bob', name: 'Bob' } });
    const [turn] = await settled(h.store, 'memory:dm-u-bob');
    expect(turn).toMatchObject({ status: 'failed' });
    expect(turn!.error).toContain('badrequest');
    await h.app.gateway.sweep();
    expect(h.model.requests).toHaveLength(1);
    await waitFor(() => h.adapter.lastBotMessage('dm-u-bob'), 'the failure message');
    expect(h.adapter.botMessages('dm-u-bob')).toHaveLength(1);
  });
});
