import { afterEach, describe, expect, it } from 'vitest';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { botMessages, closeTelegram, drained, sessionKey, startTelegram } from './helpers.ts';

afterEach(closeTelegram);

describe('telegram: groups and forum topics', () => {
  it('ignores group messages not addressed to the bot, and what must never start a turn', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice', { username: 'alice_tg' });
    const otherBot = tg.user('Helper', { username: 'helper_bot', isBot: true });
    const group = tg.group('Team', { supergroup: true });

    const { message } = tg.say(alice, group, 'just chatting among ourselves');
    tg.say(alice, group, '/help@helper_bot'); // a command for another bot
    tg.say(otherBot, group, '@parley_test_bot hello from a bot'); // other bots never start turns
    tg.service(group, alice, { new_chat_members: [tg.user('Newcomer')] });
    tg.editByUser(group, message.message_id, '@parley_test_bot now I mention you'); // edits do not count
    await drained(tg);

    expect(tg.botMessages(group)).toEqual([]);
    expect(h.model.requests).toHaveLength(0);
    expect(await h.store.sessions.getByKey(sessionKey(group))).toBeUndefined();
  });

  it('answers an @mention as a reply to it', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const group = tg.group('Team', { supergroup: true });
    h.model.enqueue({ text: 'Hi Alice, I am here.' });

    const { message } = tg.say(alice, group, '@parley_test_bot are you there?');
    const [reply] = await botMessages(tg, group);
    await waitFor(() => reply!.message.text === 'Hi Alice, I am here.', 'the answer');
    expect(reply!.message.reply_to_message?.message_id).toBe(message.message_id);
    expect(tg.callsTo('sendMessage')[0]!.params.reply_parameters).toMatchObject({ message_id: message.message_id });
    expect(h.model.requests[0]!.body.messages.at(-1)?.content).toBe('[Alice] @parley_test_bot are you there?');
  });

  it('answers a reply to one of its messages, and a text_mention of it', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const group = tg.group('Team', { supergroup: true });
    h.model.enqueue({ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'Third answer.' });

    tg.say(alice, group, '@parley_test_bot first question');
    const [first] = await botMessages(tg, group);
    await settled(h.store, sessionKey(group));

    const { message: followUp } = tg.say(alice, group, 'and a follow-up, without mentioning', { replyTo: first!.message.message_id });
    const [, second] = await botMessages(tg, group, 2);
    await waitFor(() => second!.message.text === 'Second answer.', 'the second answer');
    expect(second!.message.reply_to_message?.message_id).toBe(followUp.message_id);
    await settled(h.store, sessionKey(group));

    // A mention of the bot's account by name (users without @username are mentioned this way).
    const text = 'Parley, one more';
    const { message: named } = tg.say(alice, group, text, {
      entities: [{ type: 'text_mention', offset: 0, length: 6, user: tg.bot } as never],
    });
    const [, , third] = await botMessages(tg, group, 3);
    expect(third!.message.reply_to_message?.message_id).toBe(named.message_id);

    // A reply to someone else's message is not addressed to the bot.
    const bob = tg.user('Bob');
    tg.say(bob, group, 'replying to Alice only', { replyTo: followUp.message_id });
    await drained(tg);
    await settled(h.store, sessionKey(group));
    expect(tg.botMessages(group)).toHaveLength(3);
    expect(h.model.requests).toHaveLength(3);
  });

  it('answers /cmd@botname: control commands directly, others through the model as /cmd args', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const group = tg.group('Team', { supergroup: true });

    const { message: help } = tg.say(alice, group, '/help@parley_test_bot');
    const [helpReply] = await botMessages(tg, group);
    expect(helpReply!.message.text).toContain('mention me');
    expect(helpReply!.message.reply_to_message?.message_id).toBe(help.message_id);

    h.model.enqueue({ text: 'Here is the summary.' });
    tg.say(alice, group, '/summarize@Parley_Test_Bot the last hour');
    const [, summary] = await botMessages(tg, group, 2);
    await waitFor(() => summary!.message.text === 'Here is the summary.', 'the summary');
    expect(h.model.requests[0]!.body.messages.at(-1)?.content).toBe('[Alice] /summarize the last hour');
  });

  it('answers in the forum topic it was asked in, and in General without a message_thread_id', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const forum = tg.group('Product', { forum: true });
    const topic = tg.createTopic(forum, 'Support', alice);
    h.model.enqueue({ text: 'Answer in the Support topic.', firstChunkDelayMs: 1_200 }, { text: 'Answer in General.' });

    const { message: inTopic } = tg.say(alice, forum, '@parley_test_bot help with the topic', { topic });
    const [topicReply] = await botMessages(tg, forum);
    await waitFor(() => topicReply!.message.text === 'Answer in the Support topic.', 'the topic answer');
    expect(topicReply!.message.message_thread_id).toBe(topic);
    expect(topicReply!.message.reply_to_message?.message_id).toBe(inTopic.message_id);
    expect(tg.callsTo('sendMessage')[0]!.params.message_thread_id).toBe(topic);
    // The topic is its own session.
    await settled(h.store, sessionKey(forum, topic));

    const { message: inGeneral } = tg.say(alice, forum, '@parley_test_bot and in General?');
    const [, generalReply] = await botMessages(tg, forum, 2);
    await waitFor(() => generalReply!.message.text === 'Answer in General.', 'the General answer');
    expect(generalReply!.message.message_thread_id).toBeUndefined();
    expect(generalReply!.message.reply_to_message?.message_id).toBe(inGeneral.message_id);
    const generalSend = tg.callsTo('sendMessage')[1]!;
    expect(generalSend.ok).toBe(true);
    expect(generalSend.params.message_thread_id).toBeUndefined();
    await settled(h.store, sessionKey(forum));
    // Typing went to the right topic too.
    expect(tg.callsTo('sendChatAction').some((c) => c.params.message_thread_id === topic)).toBe(true);
    expect(tg.callsTo('sendChatAction').every((c) => c.ok)).toBe(true);
  });

  it('a message in a topic that only opens the topic thread is not a reply to the bot', async () => {
    const { tg, h } = await startTelegram();
    const alice = tg.user('Alice');
    const forum = tg.group('Product', { forum: true });
    // The bot's own topic-opening message would look like "a reply to the bot" if taken naively.
    const topic = tg.createTopic(forum, 'Announcements', tg.bot);
    tg.say(alice, forum, 'chatting in the topic, not addressing anyone', { topic });
    await drained(tg);
    expect(tg.botMessages(forum).filter((m) => m.message.text !== undefined)).toEqual([]);
    expect(h.model.requests).toHaveLength(0);
  });

  it('stays silent outside the allowlists and logs why at debug level', async () => {
    const fake = await FakeTelegram.start();
    const alice = fake.user('Alice');
    const mallory = fake.user('Mallory');
    const allowedGroup = fake.group('Allowed', { supergroup: true });
    const otherGroup = fake.group('Other', { supergroup: true });
    const { tg, h, log } = await startTelegram({
      tg: fake,
      closeTg: true,
      env: { TELEGRAM_ALLOWED_CHATS: `${allowedGroup.id}, ${alice.id}`, TELEGRAM_ALLOWED_USERS: String(alice.id) },
    });
    h.model.enqueue({ text: 'Allowed answer.' });

    tg.say(alice, otherGroup, '@parley_test_bot hello from another group');
    tg.say(mallory, allowedGroup, '@parley_test_bot hello from a stranger');
    tg.say(mallory, tg.privateChat(mallory), 'hello in private');
    await drained(tg);
    expect(tg.calls.filter((c) => c.method === 'sendMessage')).toEqual([]);

    tg.say(alice, allowedGroup, '@parley_test_bot hello from Alice');
    const [reply] = await botMessages(tg, allowedGroup);
    await waitFor(() => reply!.message.text === 'Allowed answer.', 'the allowed answer');
    const debug = log.lines.filter((l) => l.level === 'debug').map((l) => JSON.stringify(l.obj));
    expect(debug.some((l) => l.includes(`chat ${otherGroup.id} is not in TELEGRAM_ALLOWED_CHATS`))).toBe(true);
    expect(debug.some((l) => l.includes(`user ${mallory.id} is not in TELEGRAM_ALLOWED_USERS`))).toBe(true);
    expect(debug.some((l) => l.includes(`chat ${mallory.id} is not in TELEGRAM_ALLOWED_CHATS`))).toBe(true);
  });
});
