// SQLite transactions that arrive together share one BEGIN … COMMIT, each still all or nothing:
// on a real database (which statements were sent, which rows survived) and, for the failures a
// real database will not produce on demand (a COMMIT that fails), on a scripted connection.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { type GroupCommitOptions, GroupCommit } from '../../src/store/sql/group-commit.ts';
import { statementCounter } from '../../src/store/statement-count.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/harness.ts';

class Refused extends Error {}

describe('group commit on SQLite', () => {
  let dir: string;
  let store: Store;
  let sessionId: string;
  const before = process.env.PARLEY_COUNT_SQL;

  beforeAll(async () => {
    process.env.PARLEY_COUNT_SQL = 'log';
    dir = tempDir('parley-group-');
    store = await openStore(parseDatabaseUrl(`file:${join(dir, 'parley.db')}`));
    sessionId = (await store.sessions.ensure({ key: 'group', channel: 'test', chatId: 'g', chatType: 'direct' })).id;
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    if (before === undefined) delete process.env.PARLEY_COUNT_SQL;
    else process.env.PARLEY_COUNT_SQL = before;
  });

  const insert = `INSERT INTO "MemoryFact" ("sessionId", "key", "value", "updatedAt") VALUES ($1, $2, $3, $4)`;
  /** A transaction writing two facts; `fail`: it throws after the first. */
  const write = (key: string, fail = false) =>
    store.sql.transaction(async (tx) => {
      await tx.run(insert, [sessionId, `${key}-a`, 'x', new Date()]);
      if (fail) throw new Refused(key);
      await tx.run(insert, [sessionId, `${key}-b`, 'x', new Date()]);
      return key;
    });
  const keys = async () => (await store.memory.list(sessionId)).map((fact) => fact.key).sort();
  const log = () => statementCounter()!.log!;

  it('transactions started together commit together; one that fails takes only its own writes back', async () => {
    const from = log().length;
    const results = await Promise.allSettled([write('one'), write('two'), write('three', true), write('four')]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).constructor.name))).toEqual([
      'one',
      'two',
      'Refused',
      'four',
    ]);
    expect(await keys()).toEqual(['four-a', 'four-b', 'one-a', 'one-b', 'two-a', 'two-b']);
    const control = log()
      .slice(from)
      .filter((sql) => !sql.startsWith('INSERT') && !sql.startsWith('SELECT'));
    expect(control).toEqual([
      'BEGIN IMMEDIATE',
      'SAVEPOINT grouped',
      'RELEASE grouped',
      'SAVEPOINT grouped',
      'ROLLBACK TO grouped',
      'RELEASE grouped',
      'SAVEPOINT grouped',
      'RELEASE grouped',
      'COMMIT',
    ]);
  });

  it('a transaction alone is BEGIN … COMMIT, as without grouping', async () => {
    const from = log().length;
    expect(await write('alone')).toBe('alone');
    expect(log().slice(from)).toEqual(['BEGIN IMMEDIATE', insert, insert, 'COMMIT']);
  });

  it('when the first of a group fails, it is rolled back alone and the others commit after it', async () => {
    const results = await Promise.allSettled([write('first', true), write('second'), write('third')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    const facts = await keys();
    expect(facts.filter((key) => /^(first|second|third)/.test(key))).toEqual(['second-a', 'second-b', 'third-a', 'third-b']);
  });
});

describe('group commit failures', () => {
  /** A connection that records control statements and fails where told. */
  function scripted(failOn: (text: string) => boolean, loses = false) {
    const sent: string[] = [];
    let open = false;
    const options: GroupCommitOptions = {
      control(text) {
        sent.push(text);
        if (failOn(text)) {
          if (loses) open = false;
          throw new Refused(text);
        }
        if (text.startsWith('BEGIN')) open = true;
        if (text === 'COMMIT' || text === 'ROLLBACK') open = false;
      },
      inTransaction: () => open,
      runner: { all: async () => [], run: async () => 1 },
      exclusive: (work) => work(),
    };
    return { group: new GroupCommit(options), sent, lose: () => (open = false) };
  }

  it('a COMMIT that fails rejects every transaction of the group', async () => {
    const { group, sent } = scripted((text) => text === 'COMMIT');
    const results = await Promise.allSettled([group.add(async () => 1), group.add(async () => 2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(sent).toEqual(['BEGIN IMMEDIATE', 'SAVEPOINT grouped', 'RELEASE grouped', 'COMMIT', 'ROLLBACK']);
  });

  it('a transaction SQLite rolled back under a member fails the members before it too', async () => {
    const { group, lose } = scripted(() => false);
    const results = await Promise.allSettled([
      group.add(async () => 'kept?'),
      group.add(async () => {
        lose();
        throw new Refused('disk I/O error');
      }),
      group.add(async () => 'after'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
  });

  it('a BEGIN that fails rejects one transaction; the next ones try again', async () => {
    let refusals = 1;
    const { group } = scripted((text) => text.startsWith('BEGIN') && refusals-- > 0);
    const results = await Promise.allSettled([group.add(async () => 'a'), group.add(async () => 'b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
  });
});
