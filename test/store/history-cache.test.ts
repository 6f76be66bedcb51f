// A session's history as the store reads it after its first read: only the rows added since, yet
// always the whole conversation, on SQLite and on PostgreSQL: rows another process wrote, a row
// committed with a lower id than one already read, and a new epoch all show up as a full read would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementCounter } from '../../src/store/statement-count.ts';
import type { Store } from '../../src/store/store.ts';
import type { NewMessage } from '../../src/store/types.ts';
import { backends } from './backends.ts';

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
});
