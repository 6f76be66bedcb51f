// Relaxed writes (SqlDriver.relaxed) on PostgreSQL: committed without waiting for the disk, and
// used only for what a crash of the database server may lose at the price of repeated work: a
// round that asked for tools, and results marked relaxed. Answers, and everything else, wait.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { historyCache, messagesRepo } from '../../src/store/repos/messages.ts';
import { turnsRepo } from '../../src/store/repos/turns.ts';
import type { SqlDriver, SqlRunner } from '../../src/store/sql/driver.ts';
import { openPostgres } from '../../src/store/sql/postgres.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { adminUrl, freshDatabase } from '../cluster/pg-database.ts';

const commitWait = async (runner: SqlRunner) => (await runner.all('SHOW synchronous_commit'))[0]?.synchronous_commit;

describe.runIf(adminUrl)('PostgreSQL: relaxed writes', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let store: Store;
  beforeAll(async () => {
    db = await freshDatabase('parley_relaxed');
    store = await openStore(parseDatabaseUrl(db.url));
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('commit without waiting for the disk; ordinary statements and transactions wait', async () => {
    const driver = openPostgres({ provider: 'postgresql', url: db.url });
    try {
      expect(await commitWait(driver.relaxed)).toBe('off');
      expect(await commitWait(driver)).toBe('on');
      expect(await driver.transaction(commitWait)).toBe('on');
    } finally {
      await driver.close();
    }
  });

  it("keep the URL's own startup options", async () => {
    const url = new URL(db.url);
    url.searchParams.set('options', '-c statement_timeout=5000');
    const driver = openPostgres({ provider: 'postgresql', url: url.toString() });
    try {
      expect(await commitWait(driver.relaxed)).toBe('off');
      expect((await driver.relaxed.all('SHOW statement_timeout'))[0]?.statement_timeout).toBe('5s');
      expect(await commitWait(driver)).toBe('on');
    } finally {
      await driver.close();
    }
  });

  it('work with a connection string that is not a WHATWG URL (a user, the host as a parameter)', async () => {
    const url = new URL(db.url);
    const plain = `postgresql://${url.username}@/${url.pathname.slice(1)}?host=${url.hostname}&port=${url.port || '5432'}`;
    expect(() => new URL(plain)).toThrow();
    const driver = openPostgres({ provider: 'postgresql', url: plain });
    try {
      expect(await commitWait(driver.relaxed)).toBe('off');
      expect(await commitWait(driver)).toBe('on');
    } finally {
      await driver.close();
    }
  });

  it('carry a round that asked for tools and results marked relaxed; the answer and other results wait', async () => {
    const relaxedStatements: string[] = [];
    const sql: SqlDriver = store.sql;
    const recorded: SqlDriver = {
      ...sql,
      relaxed: {
        all: (text, values) => {
          relaxedStatements.push(text.trim().slice(0, 40));
          return sql.relaxed.all(text, values);
        },
        run: (text, values) => {
          relaxedStatements.push(text.trim().slice(0, 40));
          return sql.relaxed.run(text, values);
        },
      },
    };
    const histories = historyCache(recorded);
    const turns = turnsRepo(recorded, histories);
    const messages = messagesRepo(recorded, histories);
    const session = await store.sessions.ensure({ key: 'relaxed-1', channel: 'test', chatId: 'c1', chatType: 'direct' });
    const turn = await store.turns.create({
      sessionId: session.id,
      epoch: session.epoch,
      origin: { chat: { channel: 'test', chatId: 'c1', chatType: 'direct' }, requester: { id: 'u1', displayName: 'Ann' } },
    });
    const message = { sessionId: session.id, epoch: session.epoch, turnId: turn.id };
    const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };

    await turns.endRound({
      turnId: turn.id,
      usage,
      message: { ...message, role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read', arguments: '{}' }] },
    });
    expect(relaxedStatements).toEqual([expect.stringMatching(/^WITH t AS \(UPDATE "Turn"/)]);
    await messages.appendManySeeingQueue([{ ...message, role: 'tool', content: 'read', toolCallId: 'c1', toolName: 'read' }], session.id, {
      relaxed: true,
    });
    expect(relaxedStatements).toHaveLength(2);
    await messages.appendManySeeingQueue([{ ...message, role: 'tool', content: 'paid', toolCallId: 'c2', toolName: 'pay' }], session.id);
    const ended = await turns.endRound({
      turnId: turn.id,
      usage,
      message: { ...message, role: 'assistant', content: 'Done.' },
      finish: 'done',
    });
    expect(relaxedStatements).toHaveLength(2);
    // All of it is visible at once, on every connection.
    expect(ended.totals).toMatchObject({ status: 'done', rounds: 2 });
    expect((await store.messages.forTurn(turn.id)).map((m) => m.content)).toEqual(['', 'read', 'paid', 'Done.']);
  });
});
