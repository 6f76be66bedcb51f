// The same core on PostgreSQL: migrations through Parley's own migrator, a full tool turn with an
// approval, and two processes racing for one decision and one session lease. Runs when
// PARLEY_TEST_POSTGRES_URL names a server (an admin connection; .ci/run sets it), in a database
// of its own that it drops afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { openStore } from '../../src/store/store.ts';
import { ALICE } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';
import { raceInWorkers } from '../helpers/race.ts';
import { promptsIn, runs, transfer, transferCall, waitForStatus } from '../approvals/helpers.ts';

const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;
const database = `parley_test_${randomBytes(4).toString('hex')}`;
let url = '';

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe.runIf(adminUrl)('PostgreSQL', () => {
  beforeAll(async () => {
    await admin((c) => c.query(`CREATE DATABASE ${database}`));
    const parsed = new URL(adminUrl!);
    parsed.pathname = `/${database}`;
    url = parsed.toString();
  });
  afterAll(async () => {
    await closeAll();
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  });

  it('applies the committed migrations once, in a transaction, recorded in the ledger', async () => {
    const first = await openStore(parseDatabaseUrl(url));
    const second = await openStore(parseDatabaseUrl(url));
    expect(first.migrations.applied).toContain('0001_init');
    expect(second.migrations.applied).toEqual([]);
    await first.close();
    await second.close();
    const rows = await admin(async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const result = await client.query<{ name: string }>('SELECT "name" FROM "_parley_migrations" ORDER BY "name"');
      await client.end();
      return result.rows.map((r) => r.name);
    });
    expect(rows[0]).toBe('0001_init');
  });

  it('runs a gated tool turn, resumes it on approval, and keeps history', async () => {
    runs.length = 0;
    const h = await createHarness({ databaseUrl: url, tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall(12, 'Bob')] }, { text: 'Sent 12 EUR.' });
    await h.adapter.say('send Bob 12');
    const [prompt] = await promptsIn(h.adapter);
    expect(await h.adapter.click(prompt!.id, 'Approve', ALICE)).toBe('Approved.');
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn).toMatchObject({ status: 'done', rounds: 2 });
    expect(runs).toEqual(['transfer 12 Bob']);
    const session = (await h.store.sessions.getByKey('memory:dm-u-alice'))!;
    expect((await h.store.messages.history(session.id, 0)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    await h.stop();
  });

  it('two processes racing for one decision and one lease: exactly one wins each', async () => {
    const h = await createHarness({ databaseUrl: url, tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall(1, 'Carol')] });
    await h.adapter.say('send Carol 1', { from: { id: 'u-zed', name: 'Zed' } });
    await promptsIn(h.adapter, 1, 'dm-u-zed');
    await waitForStatus(h, 'memory:dm-u-zed', 'awaiting_approval');
    const approval = (await h.store.approvals.list({ status: 'pending' }))[0]!;
    const actor = { id: 'u-zed', displayName: 'Zed', channel: 'memory' };
    const decisions = await raceInWorkers<{ ok: boolean; message: string }>(url, [
      { op: 'decide', token: approval.token, actor, choice: 'approve' },
      { op: 'decide', token: approval.token, actor, choice: 'deny' },
    ]);
    expect(decisions.filter((d) => d.ok)).toHaveLength(1);
    expect(decisions.find((d) => !d.ok)!.message).toMatch(/^Already (approved|denied) by Zed\.$/);

    const other = await h.store.sessions.ensure({ key: 'memory:lease-test', channel: 'memory', chatId: 'lease-test', chatType: 'direct' });
    const leases = await raceInWorkers<boolean>(url, [
      { op: 'acquireLease', sessionId: other.id, owner: 'p1' },
      { op: 'acquireLease', sessionId: other.id, owner: 'p2' },
      { op: 'acquireLease', sessionId: other.id, owner: 'p3' },
    ]);
    expect(leases.filter(Boolean)).toHaveLength(1);
    await h.stop();
  });
});
