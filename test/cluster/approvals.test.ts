// Approvals across processes (PostgreSQL, Telegram webhooks): the prompt is sent by one process,
// the click lands on another, which decides and resumes the turn; a click on each of two processes
// decides once. Approval expiry is a timer armed to the earliest expiry, not a sweep.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TgChat, TgUser } from '../fakes/telegram/index.ts';
import { waitFor } from '../helpers/harness.ts';
import { type Cluster, type Member, startCluster } from './cluster.ts';
import { adminUrl } from './pg-database.ts';

describe.runIf(adminUrl)('approvals across processes', () => {
  let cluster: Cluster;
  let a: Member;
  let b: Member;
  beforeAll(async () => {
    // `remember` asks for approval; an unanswered prompt expires after 6 s.
    cluster = await startCluster('parley_approvals', { PARLEY_APPROVAL_REMEMBER: 'always', PARLEY_APPROVAL_TTL: '6s' });
    a = await cluster.start('a');
    b = await cluster.start('b');
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  async function promptFor(user: TgUser, chat: TgChat, text: string, value: string) {
    const { tg, model } = cluster;
    model.enqueue({ text: 'Noting it.', toolCalls: [{ name: 'remember', arguments: { key: 'colour', value } }] });
    cluster.routeTo(b);
    tg.say(user, chat, text);
    return waitFor(
      () => tg.botMessages(chat).find((m) => m.message.reply_markup && m.message.text?.includes(value)),
      'the approval prompt sent by b',
    );
  }

  it('a click on the other process resumes the turn there', { timeout: 60_000 }, async () => {
    const { tg, model } = cluster;
    const alice = tg.user('Alice');
    const chat = tg.privateChat(alice);
    const prompt = await promptFor(alice, chat, 'remember my colour is blue', 'blue');
    model.enqueue({ text: 'Saved: blue.' });
    cluster.routeTo(a);
    const query = tg.click(alice, chat, prompt.message.message_id, 'Approve');
    await waitFor(() => tg.answersTo(query).length === 1, 'the toast from a');
    expect(tg.answersTo(query)[0]!.text).toBe('Approved.');
    await waitFor(() => tg.botMessages(chat).some((m) => m.message.text?.includes('Saved: blue.')), 'the resumed turn answering');
    expect(model.requests).toHaveLength(2);
  });

  it('two clicks on two processes decide once', { timeout: 60_000 }, async () => {
    const { tg, model } = cluster;
    const bob = tg.user('Bob');
    const chat = tg.privateChat(bob);
    const before = model.requests.length;
    const prompt = await promptFor(bob, chat, 'remember my colour is green', 'green');
    model.enqueue({ text: 'Saved: green.' });
    cluster.routeTo(a);
    const approve = tg.click(bob, chat, prompt.message.message_id, 'Approve');
    cluster.routeTo(b);
    const deny = tg.click(bob, chat, prompt.message.message_id, 'Deny');
    await waitFor(() => tg.answersTo(approve).length === 1 && tg.answersTo(deny).length === 1, 'both toasts');
    const toasts = [tg.answersTo(approve)[0]!.text, tg.answersTo(deny)[0]!.text];
    // Exactly one decided; the other was told it was already decided.
    expect(toasts.filter((t) => t === 'Approved.' || t === 'Denied.')).toHaveLength(1);
    expect(toasts.filter((t) => t?.startsWith('Already '))).toHaveLength(1);
    await waitFor(() => model.requests.length === before + 2, 'the one resumed round');
    await waitFor(() => tg.botMessages(chat).filter((m) => !m.message.reply_markup).length >= 1, 'the answer');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(model.requests.length).toBe(before + 2);
  });

  it('an unanswered prompt expires at its time, with no sweep running', { timeout: 60_000 }, async () => {
    const { tg, model } = cluster;
    const carol = tg.user('Carol');
    const chat = tg.privateChat(carol);
    const prompt = await promptFor(carol, chat, 'remember my colour is red', 'red');
    model.enqueue({ text: 'It expired, so I did not save it.' });
    const shownAt = Date.now();
    await waitFor(
      () => tg.botMessages(chat).some((m) => m.message.text?.includes('It expired')),
      'the turn resumed after the expiry',
      15_000,
    );
    process.stdout.write(`expired and resumed ${Date.now() - shownAt} ms after the prompt (TTL 6 s)\n`);
    expect(tg.message(chat, prompt.message.message_id)?.message.reply_markup).toBeUndefined();
  });
});
