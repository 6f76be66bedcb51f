// The Discord gateway session survives its holder: three real processes on PostgreSQL, kill -9 of
// the one connected while messages keep coming; the process that takes the lease over RESUMEs the
// dead holder's session (stored with the lease once per beat), Discord (the fake) replays what was
// dispatched after the stored sequence, and every message, also those sent while no process was
// connected, is answered exactly once (replays of messages already handled are dropped by the
// inbound table's unique key on the Discord message id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../fakes/discord/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { killAll, type ParleyProcess, startParley } from '../helpers/child.ts';
import { waitFor } from '../helpers/harness.ts';
import { adminQuery, adminUrl, freshDatabase, receiverHolder } from './pg-database.ts';

const CHATS = 20;

describe.runIf(adminUrl)('a Discord gateway taken over by another process', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let dc: FakeDiscord;
  let model: FakeModelServer;
  beforeAll(async () => {
    db = await freshDatabase('parley_receivers_dc_resume');
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

  it('the new holder RESUMEs; messages before, across and after the kill -9 are answered once each', {
    timeout: 180_000,
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
    const holderProcess = processes.find((p) => p.child.pid === first.pid);
    expect(holderProcess).toBeDefined();

    const people = Array.from({ length: CHATS }, (_, i) => {
      const person = dc.user(`User${i}`);
      return { person, dm: dc.dm(person), sent: [] as string[] };
    });
    // A guild channel too: a resumed session gets no GUILD_CREATE, the guild must come from REST.
    const { channels } = dc.guild('Team');
    const guildPerson = dc.user('GuildUser');
    const say = (label: string) => {
      for (const [i, chat] of people.entries()) {
        const text = `c${i}-${label}`;
        chat.sent.push(text);
        dc.say(chat.person, chat.dm, text);
      }
    };
    const allAnswered = () => people.every(({ dm, sent }) => dc.botMessages(dm).length >= sent.length);

    say('before');
    await waitFor(allAnswered, 'every chat answered before the kill', 60_000);
    // The holder stored its session (id and sequence) with the lease.
    await waitFor(async () => (await holder())?.state?.includes('"sessionId"'), 'the session stored with the lease');

    // Across the kill: these are dispatched to the holder's socket just before it dies.
    say('at-kill');
    const killedAt = Date.now();
    await holderProcess!.kill9();
    // In the gap: no process is connected; the fake keeps them for the session.
    say('gap-1');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    say('gap-2');
    dc.say(guildPerson, channels[0]!, 'guild-gap', { mention: true });
    const next = await waitFor(
      async () => {
        const h = await holder();
        return h && h.pid !== first.pid && dc.gateway.connected ? h : undefined;
      },
      'another process connected to the gateway within 10 s of the kill',
      10_000,
    );
    process.stdout.write(
      `gateway resumed by pid ${next.pid} (token ${first.token} -> ${next.token}) ${Date.now() - killedAt} ms after the kill -9\n`,
    );
    expect(next.token).toBeGreaterThan(first.token);
    expect(dc.gateway.identifies, 'one IDENTIFY: the takeover resumed').toBe(1);
    expect(dc.gateway.resumes).toBe(1);

    say('after');
    const sent = people.flatMap((chat) => chat.sent);
    expect(sent.length).toBeGreaterThanOrEqual(100);
    // Messages waiting together in one chat are answered by one turn, so "once" is counted where
    // each message is recorded: one inbound event and one user message each, all handled.
    const inbound = () =>
      adminQuery<{ status: string; payload: string }>(
        `SELECT "status", "payload" FROM "InboundEvent" WHERE "channel" = 'discord'`,
        [],
        db.url,
      );
    await waitFor(
      async () => {
        const rows = await inbound();
        return rows.length === sent.length + 1 && rows.every((r) => r.status === 'done');
      },
      'every message received and handled after the takeover',
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const users = await adminQuery<{ content: string }>(`SELECT "content" FROM "Message" WHERE "role" = 'user'`, [], db.url);
    const [guildMessages, dmMessages] = [
      users.filter((u) => u.content.includes('guild-gap')),
      users.filter((u) => !u.content.includes('guild-gap')),
    ];
    expect(dmMessages.map((u) => u.content).toSorted()).toEqual(sent.toSorted());
    expect(guildMessages).toHaveLength(1);
    expect(dc.botMessages(channels[0]!).map((m) => m.versions.at(-1))).toHaveLength(1);
    expect((await inbound()).length).toBe(sent.length + 1);
    for (const { dm, sent: texts } of people) {
      const answers = dc.botMessages(dm).map((m) => m.versions.at(-1));
      expect(new Set(answers).size, 'no answer sent twice').toBe(answers.length);
      expect(answers[0]).toBe(`answer to ${texts[0]}`);
      expect(answers.length).toBeGreaterThanOrEqual(2);
      for (const answer of answers) expect(texts.map((text) => `answer to ${text}`)).toContain(answer);
    }
    expect(dc.gateway.identifies).toBe(1);
  });
});
