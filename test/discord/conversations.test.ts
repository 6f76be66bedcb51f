import { afterEach, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../fakes/discord/index.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { botMessages, closeDiscord, sessionKey, startDiscord } from './helpers.ts';

afterEach(closeDiscord);

describe('discord: conversations with the real discord.js client', () => {
  it('streams a DM answer into one message by editing it, ending with the complete Markdown text', async () => {
    const { dc, h } = await startDiscord();
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const answer =
      'Streaming **works** on Discord: this answer arrives in small pieces and the one message is edited until it is complete.';
    // The model takes a while to start (past the renderer's typing delay), so the channel shows typing.
    h.model.enqueue({ text: answer, chunkSize: 8, delayMs: 20, firstChunkDelayMs: 1_200 });

    const question = dc.say(alice, dm, 'hello bot');
    await settled(h.store, sessionKey(dm));
    const [reply] = await botMessages(dc, dm);
    await waitFor(() => reply!.message.content === answer, 'the final text');
    expect(dc.botMessages(dm)).toHaveLength(1);
    expect(reply!.versions.length).toBeGreaterThanOrEqual(2);
    expect(reply!.versions[0]!.length).toBeLessThan(answer.length);
    // DMs too: the answer replies to the message it answers (capabilities.repliesInDirect); typing first.
    const sends = dc.callsTo('POST', new RegExp(`^/channels/${dm.id}/messages$`));
    expect(reply!.message.message_reference?.message_id).toBe(question.id);
    const typing = dc.callsTo('POST', new RegExp(`^/channels/${dm.id}/typing$`));
    expect(typing.length).toBeGreaterThanOrEqual(1);
    expect(typing[0]!.at).toBeLessThanOrEqual(sends[0]!.at);
    expect(h.model.requests[0]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'hello bot' });
  });
});

describe('discord: guild channels and threads', () => {
  it('ignores a guild message without a mention; answers a mention and a reply to the bot as replies', async () => {
    const { dc, h } = await startDiscord();
    const alice = dc.user('Alice');
    const bob = dc.user('Bob');
    const { channels } = dc.guild('Team');
    const general = channels[0]!;
    h.model.enqueue({ text: 'Hello Alice, I am here.' }, { text: 'Yes, I meant the staging one.' });

    dc.say(bob, general, 'just chatting, not for the bot');
    const mention = dc.say(alice, general, 'are you there?', { mention: true });
    const [first] = await botMessages(dc, general);
    await waitFor(() => first!.message.content === 'Hello Alice, I am here.', 'the answer to the mention');
    expect(first!.message.message_reference?.message_id).toBe(mention.id);
    // The model saw the mention as a name, and never saw Bob's message.
    const seen = JSON.stringify(h.model.requests[0]!.body.messages);
    expect(seen).toContain('@parley_test_bot are you there?');
    expect(seen).not.toContain('just chatting');

    const reply = dc.say(bob, general, 'which server did you mean?', { replyTo: first!.message });
    const second = await waitFor(
      () => dc.botMessages(general).find((m) => m.message.content === 'Yes, I meant the staging one.'),
      'the answer to the reply',
    );
    expect(second.message.message_reference?.message_id).toBe(reply.id);
    await settled(h.store, sessionKey(general));
    expect(h.model.requests).toHaveLength(2);
    // Other bots never start turns.
    const otherBot = { ...dc.user('Helper'), bot: true };
    dc.say(otherBot, general, 'hello', { mention: true });
    dc.say(alice, general, 'thanks', { mention: true });
    h.model.enqueue({ text: 'You are welcome.' });
    await waitFor(() => dc.botMessages(general).some((m) => m.message.content === 'You are welcome.'), 'the third answer');
    expect(h.model.requests).toHaveLength(3);
    expect(JSON.stringify(h.model.requests[2]!.body.messages)).not.toContain('"hello"');
  });

  it('answers inside a thread, and the thread is its own session', async () => {
    const { dc, h } = await startDiscord();
    const alice = dc.user('Alice');
    const { channels } = dc.guild('Team');
    const general = channels[0]!;
    const thread = dc.thread(general, 'release planning', alice);
    h.model.enqueue({ text: 'Answer in the thread.' });

    const question = dc.say(alice, thread, 'plan the release', { mention: true });
    const [answer] = await botMessages(dc, thread);
    await waitFor(() => answer!.message.content === 'Answer in the thread.', 'the thread answer');
    expect(answer!.message.message_reference?.message_id).toBe(question.id);
    expect(dc.botMessages(general)).toHaveLength(0);
    await settled(h.store, sessionKey(thread));
    expect(await h.store.sessions.getByKey(`discord:${general.id}:${thread.id}`)).toBeTruthy();
    expect(await h.store.sessions.getByKey(`discord:${general.id}`)).toBeFalsy();
  });

  it('splits a 9000-character answer into ≥ 5 messages of ≤ 2000 characters with its code block intact', async () => {
    const { dc, h } = await startDiscord();
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(7).trim()}.`);
    const code = ['```ts', ...Array.from({ length: 30 }, (_, i) => `const value${i} = compute(${i}); // step ${i}`), '```'].join('\n');
    paragraphs.splice(20, 0, code);
    const answer = paragraphs.join('\n\n');
    expect(answer.length).toBeGreaterThanOrEqual(9000);
    h.model.enqueue({ text: answer, chunkSize: 4000 });

    dc.say(alice, dm, 'write a lot');
    await settled(h.store, sessionKey(dm), 20_000);
    const messages = await waitFor(
      () => {
        const all = dc.botMessages(dm);
        return all
          .map((m) => m.message.content)
          .join('')
          .replace(/\s+/g, '') === answer.replace(/\s+/g, '')
          ? all
          : undefined;
      },
      'every piece of the answer',
      20_000,
    );
    expect(messages.length).toBeGreaterThanOrEqual(5);
    for (const m of messages) {
      expect(m.message.content.length).toBeLessThanOrEqual(2000);
      // Every piece has balanced fences.
      expect((m.message.content.match(/```/g) ?? []).length % 2).toBe(0);
    }
    const withCode = messages.filter((m) => m.message.content.includes('const value0'));
    expect(withCode).toHaveLength(1);
    expect(withCode[0]!.message.content).toContain(code);
    expect(dc.calls.filter((c) => c.status >= 400 && c.status !== 429)).toEqual([]);
  });

  it('honours edit 429s (retry_after) while streaming, logs the wait, and the final text lands', async () => {
    const { dc, h, log } = await startDiscord({ env: { DISCORD_EDIT_INTERVAL: '30ms' } });
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const answer = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    h.model.enqueue({ text: answer, chunkSize: 5, delayMs: 40 });

    dc.say(alice, dm, 'stream fast');
    await settled(h.store, sessionKey(dm), 30_000);
    const [reply] = await botMessages(dc, dm);
    await waitFor(() => reply!.message.content === answer, 'the final text', 30_000);
    const edits = dc.callsTo('PATCH', /^\/channels\/\d+\/messages\/\d+$/);
    expect(edits.filter((c) => c.status === 429).length).toBeGreaterThanOrEqual(1);
    expect(edits.at(-1)!.status).toBe(200);
    expect(log.text()).toMatch(/Discord rate limit on PATCH .*waiting \d+ ms/);
    // Never more than 5 accepted edits of the message in any 5 s window.
    const accepted = edits.filter((c) => c.status === 200).map((c) => c.at);
    for (let i = 5; i < accepted.length; i++) expect(accepted[i]! - accepted[i - 5]!).toBeGreaterThanOrEqual(4_900);
  }, 40_000);

  it('serves only the allowed channels (a thread through its parent) and users', async () => {
    const dc = await FakeDiscord.start();
    const { channels } = dc.guild('Team', ['general', 'random']);
    const [general, random] = [channels[0]!, channels[1]!];
    const alice = dc.user('Alice');
    const mallory = dc.user('Mallory');
    const { h } = await startDiscord({ dc, env: { DISCORD_ALLOWED_CHANNELS: general.id, DISCORD_ALLOWED_USERS: alice.id } });
    try {
      h.model.enqueue({ text: 'Answer in the thread of general.' });
      dc.say(alice, random, 'not here', { mention: true });
      dc.say(mallory, general, 'not for me', { mention: true });
      const thread = dc.thread(general, 'questions', alice);
      dc.say(alice, thread, 'here please', { mention: true });
      await waitFor(
        () => dc.botMessages(thread).some((m) => m.message.content === 'Answer in the thread of general.'),
        'the thread answer',
      );
      await settled(h.store, sessionKey(thread));
      expect(h.model.requests).toHaveLength(1);
      expect(dc.botMessages(random)).toHaveLength(0);
      expect(dc.botMessages(general)).toHaveLength(0);
    } finally {
      await closeDiscord();
      await dc.close();
    }
  });
});
