// The adapter on its own (real grammY client, fake Bot API, a hand-written sink): keyboards on send
// and edit, topics, and the guarantee that every button press is answered exactly once.
import { afterEach, describe, expect, it } from 'vitest';
import { TelegramAdapter } from '../../adapters/telegram/adapter.ts';
import { loadTelegramConfig } from '../../adapters/telegram/config.ts';
import type { Action, ChatRef, InboundSink } from '../../src/core/types.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { waitFor } from '../helpers/harness.ts';
import { RecordingLogger } from './helpers.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function startAdapter(onAction: (action: Action) => Promise<void>) {
  const tg = await FakeTelegram.start();
  const log = new RecordingLogger();
  const adapter = new TelegramAdapter({
    config: loadTelegramConfig({ TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot })!,
    log,
  });
  const sink: InboundSink = { onMessage: async () => {}, onAction };
  await adapter.start(sink);
  cleanups.push(async () => {
    await adapter.stop();
    await tg.close();
  });
  return { tg, adapter, log };
}

const buttons = [
  [
    { label: 'Yes', payload: 'demo:yes', style: 'primary' as const },
    { label: 'No', payload: 'demo:no' },
  ],
];

describe('telegram: starting', () => {
  it('fails with a clear message when Telegram refuses the token or cannot be reached', async () => {
    const tg = await FakeTelegram.start();
    cleanups.push(() => tg.close());
    const sink: InboundSink = { onMessage: async () => {}, onAction: async () => {} };
    const wrongToken = '999:AAWrongTokenWrongTokenWrongToken12';
    const refused = new TelegramAdapter({
      config: loadTelegramConfig({ TELEGRAM_BOT_TOKEN: wrongToken, TELEGRAM_API_ROOT: tg.apiRoot })!,
      log: new RecordingLogger(),
    });
    const error = await refused.start(sink).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toBe(
      'Telegram did not accept TELEGRAM_BOT_TOKEN (Telegram getMe: 401 Unauthorized); check the token from @BotFather',
    );
    expect(error?.message).not.toContain(wrongToken);

    const unreachable = new TelegramAdapter({
      config: loadTelegramConfig({ TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: 'http://127.0.0.1:9' })!,
      log: new RecordingLogger(),
      startTimeoutMs: 300,
    });
    const networkError = await unreachable.start(sink).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(networkError?.message).toBe('could not reach the Telegram Bot API at http://127.0.0.1:9 within 300 ms');
    expect(networkError?.message).not.toContain(tg.token);
  });
});

describe('telegram: inline keyboards and callback queries', () => {
  it('sends buttons as an inline keyboard, keeps it on a text edit, removes it with buttons: []', async () => {
    const { tg, adapter } = await startAdapter(async (action) => action.reply.ack());
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const chat: ChatRef = { channel: 'telegram', chatId: String(dm.id), chatType: 'direct' };

    const ref = await adapter.send(chat, { text: 'Proceed?', buttons });
    const stored = tg.message(dm, Number(ref.messageId))!;
    expect(stored.message.reply_markup).toEqual({
      inline_keyboard: [
        [
          { text: 'Yes', callback_data: 'demo:yes', style: 'primary' },
          { text: 'No', callback_data: 'demo:no' },
        ],
      ],
    });

    // Telegram drops a keyboard on an edit that does not repeat it; the adapter repeats it.
    await adapter.edit(ref, { text: 'Proceed? (still waiting)' });
    expect(stored.message.text).toBe('Proceed? (still waiting)');
    expect(stored.message.reply_markup?.inline_keyboard.flat().map((b) => b.text)).toEqual(['Yes', 'No']);

    // An edit that changes nothing is not sent at all.
    const edits = tg.callsTo('editMessageText').length;
    await adapter.edit(ref, { text: 'Proceed? (still waiting)' });
    expect(tg.callsTo('editMessageText')).toHaveLength(edits);

    await adapter.edit(ref, { text: 'Decided: yes.', buttons: [] });
    expect(stored.message.text).toBe('Decided: yes.');
    expect(stored.message.reply_markup).toBeUndefined();
    expect(tg.callsTo('editMessageText').at(-1)!.params.reply_markup).toEqual({ inline_keyboard: [] });
    expect(tg.calls.filter((c) => !c.ok)).toEqual([]);
  });

  it('sends to a forum topic with message_thread_id, and to General (id 1) without one', async () => {
    const { tg, adapter } = await startAdapter(async (action) => action.reply.ack());
    const alice = tg.user('Alice');
    const forum = tg.group('Forum', { forum: true });
    const topic = tg.createTopic(forum, 'Ops', alice);
    const base = { channel: 'telegram', chatId: String(forum.id), chatType: 'group' as const };

    const inTopic = await adapter.send({ ...base, threadId: String(topic) }, { text: 'in the topic' });
    expect(inTopic.threadId).toBe(String(topic));
    expect(tg.message(forum, Number(inTopic.messageId))!.message.message_thread_id).toBe(topic);
    await adapter.typing({ ...base, threadId: String(topic) });

    const inGeneral = await adapter.send({ ...base, threadId: '1' }, { text: 'in General' });
    expect(tg.message(forum, Number(inGeneral.messageId))!.message.message_thread_id).toBeUndefined();
    await adapter.typing({ ...base, threadId: '1' });
    expect(tg.callsTo('sendMessage').map((c) => c.params.message_thread_id)).toEqual([topic, undefined]);
    expect(tg.callsTo('sendChatAction').map((c) => c.params.message_thread_id)).toEqual([topic, undefined]);
    expect(tg.calls.filter((c) => !c.ok)).toEqual([]);
  });

  it('takes "message is not modified" as done (another process already showed that text)', async () => {
    const { tg, adapter } = await startAdapter(async (action) => action.reply.ack());
    const dm = tg.privateChat(tg.user('Alice'));
    const ref = await adapter.send({ channel: 'telegram', chatId: String(dm.id), chatType: 'direct' }, { text: 'first' });
    const otherProcess = new TelegramAdapter({
      config: loadTelegramConfig({ TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot })!,
      log: new RecordingLogger(),
    });
    await otherProcess.edit(ref, { text: 'second' });
    await adapter.edit(ref, { text: 'second' });
    expect(tg.message(dm, Number(ref.messageId))!.versions).toEqual(['first', 'second']);
    expect(tg.calls.filter((c) => !c.ok).map((c) => c.error?.description)).toEqual([
      expect.stringMatching(/^Bad Request: message is not modified/),
    ]);
  });

  it('turns a callback query into an Action whose ack answers it exactly once', async () => {
    const actions: Action[] = [];
    const { tg, adapter } = await startAdapter(async (action) => {
      actions.push(action);
      await action.reply.ack('Noted.');
      await action.reply.ack('A second ack is a no-op.');
    });
    const alice = tg.user('Alice', { lastName: 'Liddell' });
    const forum = tg.group('Forum', { forum: true });
    const topic = tg.createTopic(forum, 'Ops', alice);
    const ref = await adapter.send(
      { channel: 'telegram', chatId: String(forum.id), chatType: 'group', threadId: String(topic) },
      { text: 'Proceed?', buttons },
    );

    const query = tg.click(alice, forum, Number(ref.messageId), 'No');
    await waitFor(() => tg.answersTo(query).length === 1, 'the answer');
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      channel: 'telegram',
      chatId: String(forum.id),
      chatType: 'group',
      threadId: String(topic),
      messageId: ref.messageId,
      userId: String(alice.id),
      displayName: 'Alice Liddell',
      payload: 'demo:no',
    });
    expect(tg.answersTo(query)).toEqual([{ text: 'Noted.' }]);
    expect(tg.callsTo('answerCallbackQuery')).toHaveLength(1);
  });

  it('whispers after the ack as a reply addressed to the presser (a toast is no longer possible then)', async () => {
    const { tg, adapter } = await startAdapter(async (action) => {
      await action.reply.ack('Noted.');
      await action.reply.whisper('Only for you: <the details>.');
    });
    const alice = tg.user('Alice');
    const bob = tg.user('Bob');
    const group = tg.group('Ops', { supergroup: true });
    const ref = await adapter.send({ channel: 'telegram', chatId: String(group.id), chatType: 'group' }, { text: 'Proceed?', buttons });

    const query = tg.click(bob, group, Number(ref.messageId), 'Yes');
    const whisper = await waitFor(() => tg.botMessages(group).find((m) => m.message.text?.includes('Only for you')), 'the whisper');
    expect(tg.answersTo(query)).toEqual([{ text: 'Noted.' }]);
    const answeredAt = tg.callsTo('answerCallbackQuery')[0]!.at;
    expect(tg.callsTo('sendMessage').at(-1)!.at).toBeGreaterThanOrEqual(answeredAt);
    expect(whisper.message.text).toBe('Bob: Only for you: <the details>.');
    expect(whisper.message.reply_to_message?.message_id).toBe(Number(ref.messageId));
    expect(whisper.message.entities).toEqual([{ type: 'text_link', offset: 0, length: 3, url: `tg://user?id=${bob.id}` }]);
    expect(alice.id).not.toBe(bob.id);

    // In a private chat the message is simply there.
    const dm = tg.privateChat(alice);
    const dmRef = await adapter.send({ channel: 'telegram', chatId: String(dm.id), chatType: 'direct' }, { text: 'Proceed?', buttons });
    tg.click(alice, dm, Number(dmRef.messageId), 'No');
    const direct = await waitFor(() => tg.botMessages(dm).find((m) => m.message.text?.includes('Only for you')), 'the whisper in the DM');
    expect(direct.message.text).toBe('Only for you: <the details>.');
  });

  it('answers a press even when the core never acknowledges it, or fails', async () => {
    let mode: 'silent' | 'throw' = 'silent';
    const { tg, adapter, log } = await startAdapter(async () => {
      if (mode === 'throw') throw new Error('database unavailable');
    });
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const ref = await adapter.send({ channel: 'telegram', chatId: String(dm.id), chatType: 'direct' }, { text: 'Proceed?', buttons });

    const silent = tg.click(alice, dm, Number(ref.messageId), 'Yes');
    await waitFor(() => tg.answersTo(silent).length === 1, 'the silent answer');
    expect(tg.answersTo(silent)).toEqual([{}]);

    mode = 'throw';
    const failing = tg.click(alice, dm, Number(ref.messageId), 'Yes');
    await waitFor(() => tg.answersTo(failing).length === 1, 'the error answer');
    expect(tg.answersTo(failing)).toEqual([{ text: 'Something went wrong; please try again.' }]);
    expect(log.lines.some((l) => l.level === 'error' && l.msg?.includes('database unavailable'))).toBe(true);
    expect(tg.callsTo('answerCallbackQuery')).toHaveLength(2);
  });
});

describe('telegram: long polling takes a batch', () => {
  async function startWith(onMessage: InboundSink['onMessage'], before: (tg: FakeTelegram) => void) {
    const tg = await FakeTelegram.start();
    before(tg);
    const log = new RecordingLogger();
    const adapter = new TelegramAdapter({
      config: loadTelegramConfig({ TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot })!,
      log,
    });
    await adapter.start({ onMessage, onAction: async () => {} });
    cleanups.push(async () => {
      await adapter.stop();
      await tg.close();
    });
    return { tg, log };
  }

  it("takes other chats' messages while one waits, one chat's in order, and confirms the batch once all are taken", async () => {
    const events: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const { tg } = await startWith(
      async (inbound) => {
        events.push(`start ${inbound.text}`);
        if (inbound.text === 'a1') await slow;
        events.push(`end ${inbound.text}`);
      },
      (tg) => {
        // Queued before polling starts: one getUpdates returns all three.
        const alice = tg.user('Alice');
        const bob = tg.user('Bob');
        tg.say(alice, tg.privateChat(alice), 'a1');
        tg.say(bob, tg.privateChat(bob), 'b1');
        tg.say(alice, tg.privateChat(alice), 'a2');
      },
    );
    cleanups.push(async () => release()); // runs before the adapter stops, even when an expectation failed
    const batch = tg.world.queue.map((u) => u.update_id);
    expect(batch).toHaveLength(3);

    await waitFor(() => events.includes('end b1'), "Bob's message taken while Alice's first one waits");
    expect(events).toEqual(['start a1', 'start b1', 'end b1']);
    // Not confirmed: no next getUpdates while a message of the batch is still being taken.
    expect(tg.callsTo('getUpdates')).toHaveLength(1);
    expect(tg.world.queue.map((u) => u.update_id)).toEqual(batch);

    release();
    await waitFor(() => tg.world.queue.length === 0, 'the batch confirmed');
    expect(events).toEqual(['start a1', 'start b1', 'end b1', 'end a1', 'start a2', 'end a2']);
  });

  it('logs a message that could not be taken, goes on with the next one of that chat, and confirms the batch', async () => {
    const taken: string[] = [];
    const { tg, log } = await startWith(
      async (inbound) => {
        if (inbound.text === 'a1') throw new Error('the core refused it');
        taken.push(inbound.text);
      },
      (tg) => {
        const alice = tg.user('Alice');
        tg.say(alice, tg.privateChat(alice), 'a1');
        tg.say(alice, tg.privateChat(alice), 'a2');
      },
    );
    await waitFor(() => tg.world.queue.length === 0, 'the batch confirmed');
    expect(taken).toEqual(['a2']);
    expect(log.lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([
      'handling a Telegram update failed: the core refused it',
    ]);
  });
});
