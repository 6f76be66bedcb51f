import { afterEach, describe, expect, it } from 'vitest';
import { settled, waitFor } from '../helpers/harness.ts';
import { botMessages, closeTelegram, sessionKey, startTelegram } from './helpers.ts';

afterEach(closeTelegram);

describe('telegram: private chats', () => {
  it('streams an answer into one message, edited several times, ending with the complete text', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice', { username: 'alice' });
    const dm = tg.privateChat(alice);
    const answer =
      'Streaming **works**: this answer arrives in many small pieces, so the one message that shows it is edited several times before it is complete.';
    // The model takes a while to start (past the renderer's typing delay), so the chat shows typing.
    h.model.enqueue({ text: answer, chunkSize: 6, delayMs: 15, firstChunkDelayMs: 1_200 });

    tg.say(alice, dm, 'hello bot');
    await settled(h.store, sessionKey(dm));
    const expected =
      'Streaming works: this answer arrives in many small pieces, so the one message that shows it is edited several times before it is complete.';
    const [reply] = await botMessages(tg, dm);
    await waitFor(() => reply!.message.text === expected, 'the final text');

    expect(tg.botMessages(dm)).toHaveLength(1);
    expect(reply!.versions.length).toBeGreaterThanOrEqual(3);
    // The message appeared before the answer was complete, and no edit repeated the text it replaced.
    expect(reply!.versions[0]!.length).toBeLessThan(expected.length);
    for (let i = 1; i < reply!.versions.length; i++) expect(reply!.versions[i]).not.toBe(reply!.versions[i - 1]);
    expect(reply!.message.entities).toEqual([{ type: 'bold', offset: 10, length: 5 }]);
    expect(tg.calls.filter((c) => !c.ok && c.method === 'editMessageText')).toEqual([]);
    // Private chats: not sent as a reply, in HTML parse mode, with a typing indicator first (the model was slow to start).
    const sends = tg.callsTo('sendMessage');
    expect(sends[0]!.params).toMatchObject({ chat_id: dm.id, parse_mode: 'HTML' });
    expect(sends[0]!.params.reply_parameters).toBeUndefined();
    const typing = tg.callsTo('sendChatAction');
    expect(typing[0]!.params).toMatchObject({ chat_id: dm.id, action: 'typing' });
    expect(typing[0]!.at).toBeLessThanOrEqual(sends[0]!.at);
    // The model saw what Alice wrote.
    expect(h.model.requests[0]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'hello bot' });
  });

  it('registers the command menu and describes itself', async () => {
    const { tg, adapter } = await startTelegram();
    expect(tg.commands?.map((c) => c.command)).toEqual(['start', 'help', 'stop', 'reset', 'approve', 'deny', 'revoke', 'model']);
    expect(tg.commands?.every((c) => c.description.length > 0)).toBe(true);
    expect(adapter.describe()).toEqual(['telegram @parley_test_bot (long polling)']);
    expect(adapter.identity).toEqual({ id: tg.bot.id, username: 'parley_test_bot' });
  });

  it('answers /start and /help without the model', async () => {
    const { tg, h } = await startTelegram();
    const bob = tg.user('Bob');
    const dm = tg.privateChat(bob);
    tg.say(bob, dm, '/start');
    const [welcome] = await botMessages(tg, dm);
    expect(welcome!.message.text).toContain('I am Parley');
    expect(welcome!.message.text).toContain('/reset');
    expect(h.model.requests).toHaveLength(0);
  });
});
