// The Discord gateway with three real processes on PostgreSQL: exactly one process holds a gateway
// session (the receiver lease); after a kill -9 of it another connects within 10 s (resuming the
// session: receivers-discord-resume.test.ts), and messages sent before the kill and after the
// takeover are each answered exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../fakes/discord/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { killAll, type ParleyProcess, startParley } from '../helpers/child.ts';
import { waitFor } from '../helpers/harness.ts';
import { adminUrl, freshDatabase, receiverHolder } from './pg-database.ts';

const CHATS = 20;

describe.runIf(adminUrl)('the Discord gateway across three processes', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let dc: FakeDiscord;
  let model: FakeModelServer;
  beforeAll(async () => {
    db = await freshDatabase('parley_receivers_dc');
    dc = await FakeDiscord.start();
    model = await FakeModelServer.start();
    model.setFallback((request) => ({ text: `answer to ${String(request.body.messages.at(-1)!.content)}` }));
  });
  afterAll(async () => {
    killAll();
    await dc?.close();
    await model?.close();
    await db?.drop();
  });

  const holder = () => receiverHolder('discord', db.url);

  it('one process holds the gateway; after its kill -9 another connects within 10 s; answers once each', {
    timeout: 120_000,
  }, async () => {
    const env = {
      DISCORD_BOT_TOKEN: dc.token,
      DISCORD_API_ROOT: dc.apiRoot,
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'fake-model',
      OPENAI_API_KEY: 'test-key',
      DATABASE_URL: db.url,
    };
    const processes: ParleyProcess[] = [];
    for (let i = 0; i < 3; i++) {
      const parley = startParley(env);
      await parley.ready();
      processes.push(parley);
    }
    const first = await waitFor(() => holder(), 'a gateway holder');
    expect(dc.gateway.identifies, 'one gateway session for three processes').toBe(1);
    const holderProcess = processes.find((p) => p.child.pid === first.pid);
    expect(holderProcess).toBeDefined();

    const people = Array.from({ length: CHATS }, (_, i) => {
      const person = dc.user(`User${i}`);
      return { person, dm: dc.dm(person) };
    });
    for (const [i, { person, dm }] of people.entries()) dc.say(person, dm, `c${i}-before`);
    // The kill comes once these answers are complete: a turn cut between its send and recording it
    // is the turn recovery's business (test/cluster/heartbeat-takeover.test.ts), not the receiver's.
    await waitFor(
      () => people.every(({ dm }, i) => dc.botMessages(dm)[0]?.versions.at(-1) === `answer to c${i}-before`),
      'every chat answered before the kill',
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const killedAt = Date.now();
    await holderProcess!.kill9();
    const next = await waitFor(
      async () => {
        const h = await holder();
        return h && h.pid !== first.pid && dc.gateway.connected ? h : undefined;
      },
      'another process connected to the gateway within 10 s of the kill',
      10_000,
    );
    process.stdout.write(
      `gateway taken over by pid ${next.pid} (token ${first.token} -> ${next.token}) ${Date.now() - killedAt} ms after the kill -9\n`,
    );
    expect(next.token).toBeGreaterThan(first.token);
    expect(dc.gateway.identifies, 'the takeover resumed the session').toBe(1);

    for (const [i, { person, dm }] of people.entries()) dc.say(person, dm, `c${i}-after`);
    await waitFor(() => people.every(({ dm }) => dc.botMessages(dm).length >= 2), 'every chat answered after the takeover', 60_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    for (const [i, { dm }] of people.entries()) {
      expect(dc.botMessages(dm).map((m) => m.versions.at(-1))).toEqual([`answer to c${i}-before`, `answer to c${i}-after`]);
    }
    expect(dc.gateway.identifies, 'still one session: the standbys never connected').toBe(1);
  });
});
