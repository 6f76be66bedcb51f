// A session's history as the store reads it after its first read: only the rows added since, yet
// always the whole conversation, on SQLite and on PostgreSQL: rows another process wrote, a row
// committed with a lower id than one already read, and a new epoch all show up as a full read would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryCache } from '../../src/store/repos/history-cache.ts';
import { statementCounter } from '../../src/store/statement-count.ts';
import type { Store } from '../../src/store/store.ts';
import type { NewMessage } from '../../src/store/types.ts';
import { backends, testInbound as inbound } from './backends.ts';

describe.each(backends())('history read on $name', (backend) => {
  let one: Store;
  let other: Store;
  beforeAll(async () => {
    // The drivers count statements when this is set as they open.
    process.env.PARLEY_COUNT_SQL = '1';
    const open = await backend.create();
    one = await open();
    other = await open();
  });
  afterAll(async () => {
    await one?.close();
    await other?.close();
    await backend.destroy();
    delete process.env.PARLEY_COUNT_SQL;
  });

  const said = (sessionId: string, content: string, epoch = 0): NewMessage => ({ sessionId, epoch, role: 'user', content });
  const texts = (rows: { content: string }[]) => rows.map((row) => row.content);

  it('returns what was appended since the last read, by this process or another one', async () => {
    const session = await one.sessions.ensure({ key: 'h-1', channel: 'test', chatId: 'h1', chatType: 'direct' });
    await one.messages.appendMany([said(session.id, 'a'), said(session.id, 'b')]);
    expect(texts(await one.messages.history(session.id, 0))).toEqual(['a', 'b']);
    await one.messages.append(said(session.id, 'c'));
    await other.messages.append(said(session.id, 'd'));
    const read = await one.messages.history(session.id, 0);
    expect(texts(read)).toEqual(['a', 'b', 'c', 'd']);
    // The caller's copy is its own: extending it changes nothing for the next read.
    read.push({ ...read[0]!, id: 999_999, content: 'not stored' });
    expect(texts(await one.messages.history(session.id, 0))).toEqual(['a', 'b', 'c', 'd']);
    expect(await other.messages.history(session.id, 0)).toEqual(await one.messages.history(session.id, 0));
  });

  it('reads the whole conversation again when a row with a lower id than the newest read was committed since', async () => {
    const session = await one.sessions.ensure({ key: 'h-2', channel: 'test', chatId: 'h2', chatType: 'direct' });
    // As when two transactions cross on PostgreSQL: id 500 is taken first but committed after 600.
    const insert = (id: number, content: string) =>
      other.sql.run(
        `INSERT INTO "Message" ("id", "sessionId", "epoch", "role", "content", "isError", "createdAt") VALUES ($1, $2, 0, 'user', $3, $4, $5)`,
        [id, session.id, content, false, new Date()],
      );
    await insert(400, 'first');
    await insert(600, 'third');
    expect(texts(await one.messages.history(session.id, 0))).toEqual(['first', 'third']);
    await insert(500, 'second');
    expect(texts(await one.messages.history(session.id, 0))).toEqual(['first', 'second', 'third']);
  });

  it('from a given id on: older rows are neither returned nor read, and rows added since still are', async () => {
    const session = await one.sessions.ensure({ key: 'h-4', channel: 'test', chatId: 'h4', chatType: 'direct' });
    const rows = await one.messages.appendMany(['w1', 'w2', 'w3', 'w4'].map((content) => said(session.id, content)));
    expect(texts(await one.messages.history(session.id, 0))).toEqual(['w1', 'w2', 'w3', 'w4']);
    await other.messages.append(said(session.id, 'w5'));
    expect(texts(await one.messages.history(session.id, 0, rows[2]!.id))).toEqual(['w3', 'w4', 'w5']);
    await one.messages.append(said(session.id, 'w6'));
    expect(texts(await one.messages.history(session.id, 0, rows[2]!.id))).toEqual(['w3', 'w4', 'w5', 'w6']);
    // A read from an earlier id than the one kept reads those rows again.
    expect(texts(await one.messages.history(session.id, 0))).toEqual(['w1', 'w2', 'w3', 'w4', 'w5', 'w6']);
  });

  it('reads only the new epoch after a reset, and one statement per read', async () => {
    const session = await one.sessions.ensure({ key: 'h-3', channel: 'test', chatId: 'h3', chatType: 'direct' });
    await one.messages.appendMany([said(session.id, 'old 1'), said(session.id, 'old 2')]);
    expect(texts(await one.messages.history(session.id, 0))).toEqual(['old 1', 'old 2']);
    await one.messages.append(said(session.id, 'new 1', 1));
    expect(texts(await one.messages.history(session.id, 1))).toEqual(['new 1']);
    expect(texts(await one.messages.history(session.id, 0))).toEqual(['old 1', 'old 2']);
    const counter = statementCounter()!;
    const before = counter.total;
    await one.messages.history(session.id, 0);
    expect(counter.total - before).toBe(1);
  });
  it("a turn start that finds the cached conversation complete spares its turn the read; another process's row makes it read", async () => {
    const key = 'h-start';
    const session = await one.sessions.ensure({ key, channel: 'test', chatId: 'hs', chatType: 'direct' });
    const counter = statementCounter()!;
    const origin = { chat: { channel: 'test', chatId: 'hs', chatType: 'direct' as const }, requester: { id: 'u1', displayName: 'Alice' } };
    /** A whole 1-round turn: start, the turn's history read (counted), the answer with the lease's release. */
    const turn = async (eventId: string) => {
      const started = await one.turnStart.fromMessage({
        key,
        inbound: inbound(eventId, eventId),
        owner: 'o1',
        leaseMs: 60_000,
        origin,
        content: eventId,
      });
      if (!started || started === 'duplicate') throw new Error(`not started: ${started}`);
      const before = counter.total;
      const history = texts(await one.messages.history(session.id, 0, 0, started.historyChecked));
      const reads = counter.total - before;
      const answer = { sessionId: session.id, epoch: 0, turnId: started.turn.id, role: 'assistant' as const, content: `re ${eventId}` };
      await one.turns.endRound({ turnId: started.turn.id, usage: undefined, message: answer, finish: 'done', releaseLeaseOf: 'o1' });
      return { history, reads };
    };
    expect(await turn('s1')).toEqual({ history: ['s1'], reads: 1 });
    // The cache now knows the chat's key, and its rows (its own answer included) are all there are.
    expect(await turn('s2')).toEqual({ history: ['s1', 're s1', 's2'], reads: 0 });
    expect(await turn('s3')).toEqual({ history: ['s1', 're s1', 's2', 're s2', 's3'], reads: 0 });
    await other.messages.append(said(session.id, 'elsewhere'));
    expect(await turn('s4')).toEqual({ history: ['s1', 're s1', 's2', 're s2', 's3', 're s3', 'elsewhere', 's4'], reads: 1 });
    expect(await turn('s5')).toMatchObject({ reads: 0 });
    // The start's user message is kept as the database keeps it (a lone surrogate mended).
    expect(await turn('half \ud83d')).toMatchObject({ reads: 0, history: expect.arrayContaining(['half \ufffd']) });
    // Only the turn whose start checked it trusts the cache: any other read looks.
    const before = counter.total;
    await one.messages.history(session.id, 0);
    expect(counter.total - before).toBe(1);
    expect(await other.messages.history(session.id, 0)).toEqual(await one.messages.history(session.id, 0));
  });
});

describe('history cache checked by a turn start', () => {
  const row = (id: number) => ({
    id,
    sessionId: 's',
    epoch: 0,
    role: 'user' as const,
    content: `m${id}`,
    isError: false,
    createdAt: new Date(),
  });

  it('is trusted only when the start counted as many rows and the same newest id (a row committed out of order is read)', async () => {
    let reads = 0;
    const stored = [row(1), row(3), row(5)];
    const cache = new HistoryCache({
      async since(_sessionId, _epoch, fromId, afterId) {
        reads++;
        return { rows: stored.filter((r) => r.id > afterId), total: stored.filter((r) => r.id >= fromId).length };
      },
    });
    expect((await cache.history('s', 0)).map((r) => r.id)).toEqual([1, 3, 5]);
    cache.verify('k', 's', 0, undefined, row(6));
    expect(cache.windowOf('k')).toEqual({ fromId: 0, rows: 3, lastId: 5 });
    // Same count and newest id: the started turn's message follows, nothing is read.
    stored.push(row(7));
    expect(cache.verify('k', 's', 0, { fromId: 0, rows: 3, lastId: 5 }, row(7))).toBe(true);
    expect((await cache.history('s', 0, 0, true)).map((r) => r.id)).toEqual([1, 3, 5, 7]);
    expect(reads).toBe(1);
    // Row 4 committed late: the newest id is unchanged, the count is not.
    stored.splice(2, 0, row(4));
    stored.push(row(8));
    expect(cache.verify('k', 's', 0, { fromId: 0, rows: 5, lastId: 7 }, row(8))).toBe(false);
    expect((await cache.history('s', 0, 0, true)).map((r) => r.id)).toEqual([1, 3, 4, 5, 7, 8]);
    expect(reads).toBe(3);
    // A trusted window read from a later id (the context window moved on): the rows from that id, nothing read.
    stored.push(row(9));
    expect(cache.verify('k', 's', 0, { fromId: 0, rows: 6, lastId: 8 }, row(9))).toBe(true);
    for (const fromId of [5, 6, 9, 14]) {
      const expected = stored.filter((r) => r.id >= fromId).map((r) => r.id);
      expect((await cache.history('s', 0, fromId, true)).map((r) => r.id)).toEqual(expected);
      // The next turn starts: its message follows the window, still trusted.
      const next = row(stored.at(-1)!.id + 1);
      expect(cache.verify('k', 's', 0, cache.windowOf('k'), next)).toBe(true);
      stored.push(next);
    }
    expect(reads).toBe(3);
  });
});
