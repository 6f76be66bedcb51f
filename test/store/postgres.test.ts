// The same core on PostgreSQL: migrations through Parley's own migrator, a full tool turn with an
// approval, and two processes racing for one decision and one session lease. Runs when
// PARLEY_TEST_POSTGRES_URL names a server (an admin connection; .ci/run sets it), in a database
// of its own that it drops afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { openStore } from '../../src/store/store.ts';
import { ALICE } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';
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

  // `late`: the answer's first message reaches the chat only after the database is gone, so this
  // process could not record it either, and still continues the answer in it.
  it.each([
    { sends: 'at once', user: 'u-dora' },
    { sends: 'late', user: 'u-erin' },
  ])(
    'when the database goes away mid-turn, the user is told, and the turn continues once it is back (sends $sends)',
    async ({ sends, user }) => {
      const chat = `dm-${user}`;
      let pullThePlug: () => Promise<void> = async () => {};
      let unplugged = (): void => {};
      const plugPulled = new Promise<void>((resolve) => (unplugged = resolve));
      const unplug = defineTool({
        name: 'unplug',
        description: 'Takes the database away under the running turn',
        parameters: z.object({}),
        approval: 'never',
        async execute() {
          await pullThePlug();
          unplugged();
          return 'unplugged';
        },
      }) as AnyTool;
      const h = await createHarness({ databaseUrl: url, tools: [unplug], scheduler: { leaseMs: 1_000 } });
      pullThePlug = () =>
        admin(async (c) => {
          await c.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
          await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
            database,
          ]);
        });
      h.model.enqueue({ text: 'Working on it.', toolCalls: [{ name: 'unplug', arguments: {} }] }, (request) => ({
        text: request.body.messages.at(-1)!.content?.startsWith('Interrupted') ? 'Back again: the thing is done.' : 'unexpected',
      }));
      if (sends === 'late') {
        const send = h.adapter.send.bind(h.adapter);
        h.adapter.send = async (...args) => {
          await plugPulled;
          return send(...args);
        };
      }
      await h.adapter.say('please do the thing', { from: { id: user, name: 'Dora' } });
      const reply = await waitFor(
        () => h.adapter.botMessages(chat).find((m) => m.text.includes('database')),
        'the failure message',
        20_000,
      );
      expect(reply.text).toBe(
        'Working on it.\n\n_I lost the connection to my database and had to pause here. I will pick this up again as soon as it is back._',
      );
      expect(h.model.requests).toHaveLength(1);

      // The database comes back: the same process continues the turn from what was stored.
      await admin((c) => c.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`));
      const [turn] = await settled(h.store, `memory:${chat}`, 20_000);
      expect(turn!.status).toBe('done');
      // One answer: the message that said it paused is continued in place.
      await waitFor(() => h.adapter.lastBotMessage(chat)!.text.includes('Back again'), 'the continued answer');
      // The tool ran but its result could not be stored: it is not run again, and the chat is told.
      expect(h.adapter.botMessages(chat).map((m) => m.text)).toEqual([
        'Working on it.\n\nBack again: the thing is done.\n\n_I was interrupted while running unplug; it may or may not have taken effect, and I did not run it again._',
      ]);
      const session = (await h.store.sessions.getByKey(`memory:${chat}`))!;
      const history = await h.store.messages.history(session.id, 0);
      expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(history[0]!.content).toBe('please do the thing');
      expect(history[2]!.content).toMatch(/^Interrupted/);
      await h.stop();
    },
  );

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
