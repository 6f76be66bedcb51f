// kill -9 of a process in the middle of a turn: its heartbeat stops, another process reaps it,
// takes the session and continues the turn, within about 10 s (a lease lasts 3 beats of 2 s).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors } from '../fakes/telegram/index.ts';
import { waitFor } from '../helpers/harness.ts';
import { type Cluster, startCluster } from './cluster.ts';
import { adminUrl } from './pg-database.ts';

describe.runIf(adminUrl)('a process killed mid-turn', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster('parley_takeover');
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('another process continues the turn within ~10 s of the kill', { timeout: 90_000 }, async () => {
    const { tg, model } = cluster;
    const a = await cluster.start('a');
    const b = await cluster.start('b');
    const alice = tg.user('Alice');
    const chat = tg.privateChat(alice);
    // The first answer starts streaming and never ends (its process dies); the continuation answers.
    model.enqueue({ text: 'Let me think about that for a long while', hold: new Promise(() => {}) });
    model.enqueue({ text: 'Continued elsewhere: 42.' });
    cluster.routeTo(a);
    tg.say(alice, chat, 'what is the answer?');
    await waitFor(() => model.requests.length === 1, 'the turn running on a');

    const killedAt = Date.now();
    await a.parley.kill9();
    const answer = await waitFor(
      () => tg.botMessages(chat).find((m) => m.message.text?.includes('Continued elsewhere: 42.')),
      'the turn continued by b within 10 s of the kill',
      10_000,
    );
    const took = Date.now() - killedAt;
    process.stdout.write(`turn continued by b ${took} ms after the kill -9 of a\n`);
    expect(model.requests).toHaveLength(2);
    expect(answer.message.text).toContain('Continued elsewhere: 42.');
    expect(b.parley.child.exitCode).toBeNull();
  });

  it('a process that stops cleanly mid-turn hands the turn over at once (it announces itself gone)', { timeout: 90_000 }, async () => {
    const { tg, model } = cluster;
    const c = await cluster.start('c');
    const d = await cluster.start('d');
    const bob = tg.user('Bob');
    const chat = tg.privateChat(bob);
    const before = model.requests.length;
    model.enqueue({ text: 'Starting a long answer', hold: new Promise(() => {}) });
    model.enqueue({ text: 'Finished by the other process.' });
    cluster.routeTo(c);
    tg.say(bob, chat, 'a long question');
    await waitFor(() => model.requests.length === before + 1, 'the turn running on c');

    // SIGINT: c waits its grace, interrupts the turn at a checkpoint and exits; d continues it.
    const t0 = Date.now();
    expect(await c.parley.stop()).not.toBeNull();
    const stoppedAt = Date.now();
    await waitFor(
      () => tg.botMessages(chat).find((m) => m.message.text?.includes('Finished by the other process.')),
      'the turn continued by d',
      5_000,
    );
    process.stdout.write(`c stopped in ${stoppedAt - t0} ms (its grace); the turn continued by d ${Date.now() - stoppedAt} ms after\n`);
    expect(d.parley.child.exitCode).toBeNull();
  });

  it('a process killed while Telegram refuses its answer (429): another delivers the answer, once', { timeout: 90_000 }, async () => {
    const { tg, model } = cluster;
    const e = await cluster.start('e');
    const f = await cluster.start('f');
    const carol = tg.user('Carol');
    const chat = tg.privateChat(carol);
    const before = model.requests.length;
    model.enqueue({ text: 'The owed answer: 7.' });
    tg.failNext('sendMessage', errors.tooManyRequests(60), { when: (params) => String(params.chat_id) === String(chat.id) });
    cluster.routeTo(e);
    tg.say(carol, chat, 'what is the number?');
    await waitFor(() => tg.callsTo('sendMessage').some((c) => !c.ok && String(c.params.chat_id) === String(chat.id)), 'the refused answer');
    // e records the answer as owed while it waits out the retry-after, and dies.
    await sleep(300);
    await e.parley.kill9();
    const answer = await waitFor(
      () => tg.botMessages(chat).find((m) => m.message.text === 'The owed answer: 7.'),
      'the answer delivered by f once e is reaped',
      15_000,
    );
    expect(answer.message.text).toBe('The owed answer: 7.');
    expect(model.requests).toHaveLength(before + 1);
    expect(tg.botMessages(chat)).toHaveLength(1);
    expect(f.parley.child.exitCode).toBeNull();
  });
});
