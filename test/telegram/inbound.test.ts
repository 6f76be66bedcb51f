// Update → Inbound normalisation, on Bot API payloads shaped like Telegram's.
import { describe, expect, it } from 'vitest';
import type { AccessPolicy } from '../../adapters/telegram/inbound.ts';
import { classifyUpdate } from './classify.ts';

const BOT = { id: 42, username: 'parley_bot' };
const OPEN: AccessPolicy = { allowedChats: new Set(), allowedUsers: new Set() };
const alice = { id: 1001, is_bot: false, first_name: 'Alice', last_name: 'Liddell', username: 'alice' };
const group = { id: -1001234, type: 'supergroup', title: 'Team' };
const forum = { ...group, is_forum: true };

function message(fields: Record<string, unknown>) {
  return { message_id: 10, from: alice, chat: group, date: 1_700_000_000, ...fields };
}

function classify(update: Record<string, unknown>, access = OPEN) {
  return classifyUpdate({ update_id: 555, ...update }, BOT, access, 'telegram');
}

async function inbound(update: Record<string, unknown>) {
  const result = await classify(update);
  if (result.kind !== 'message') throw new Error(`expected a message, got ${result.kind}: ${'reason' in result ? result.reason : ''}`);
  return result.inbound;
}

describe('telegram inbound normalisation', () => {
  it('normalises a private message', async () => {
    const result = await inbound({ message: message({ chat: { id: 1001, type: 'private', first_name: 'Alice' }, text: 'hello' }) });
    expect(result).toEqual({
      channel: 'telegram',
      chatId: '1001',
      chatType: 'direct',
      messageId: '10',
      eventId: '42:555',
      sender: { id: '1001', displayName: 'Alice Liddell', isBot: false },
      text: 'hello',
      attachments: [],
      mentionsBot: false,
      repliesToBot: false,
      receivedAt: new Date(1_700_000_000_000),
    });
  });

  it('detects mentions by @username (any case) and by text_mention, not other mentions', async () => {
    const text = 'hey @Parley_Bot and @someone_else';
    expect((await inbound({ message: message({ text, entities: [{ type: 'mention', offset: 4, length: 11 }] }) })).mentionsBot).toBe(true);
    expect((await inbound({ message: message({ text, entities: [{ type: 'mention', offset: 20, length: 13 }] }) })).mentionsBot).toBe(
      false,
    );
    // An @username in plain text without a mention entity (e.g. inside code) is not a mention.
    expect(
      (await inbound({ message: message({ text: 'see `@parley_bot`', entities: [{ type: 'code', offset: 4, length: 13 }] }) })).mentionsBot,
    ).toBe(false);
    const byName = message({
      text: 'Parley, help',
      entities: [{ type: 'text_mention', offset: 0, length: 6, user: { id: 42, is_bot: true, first_name: 'Parley' } }],
    });
    expect((await inbound({ message: byName })).mentionsBot).toBe(true);
    // Offsets are UTF-16 code units: an emoji before the mention counts twice.
    const emoji = message({ text: '👋 @parley_bot hi', entities: [{ type: 'mention', offset: 3, length: 11 }] });
    expect((await inbound({ message: emoji })).mentionsBot).toBe(true);
  });

  it('normalises /cmd@thisbot to /cmd and drops commands for other bots', async () => {
    const own = await inbound({
      message: message({ text: '/reset@Parley_Bot now', entities: [{ type: 'bot_command', offset: 0, length: 17 }] }),
    });
    expect(own.text).toBe('/reset now');
    expect(own.mentionsBot).toBe(true);
    expect((await inbound({ message: message({ text: '/help' }) })).text).toBe('/help');
    expect(await classify({ message: message({ text: '/help@other_bot' }) })).toEqual({
      kind: 'ignored',
      reason: 'command for another bot (@other_bot)',
    });
  });

  it('counts replies to the bot, but not the topic opener a topic message points at', async () => {
    const reply = await inbound({
      message: message({ text: 'yes', reply_to_message: { message_id: 7, from: { id: 42, is_bot: true, first_name: 'Parley' } } }),
    });
    expect(reply).toMatchObject({ repliesToBot: true, replyToMessageId: '7' });
    const toAlice = await inbound({ message: message({ text: 'yes', reply_to_message: { message_id: 8, from: alice } }) });
    expect(toAlice).toMatchObject({ repliesToBot: false, replyToMessageId: '8' });

    const opener = {
      message_id: 300,
      from: { id: 42, is_bot: true, first_name: 'Parley' },
      forum_topic_created: { name: 'Ops', icon_color: 1 },
    };
    const inTopic = await inbound({
      message: message({ chat: forum, text: 'hi', message_thread_id: 300, is_topic_message: true, reply_to_message: opener }),
    });
    expect(inTopic).toMatchObject({ threadId: '300', repliesToBot: false });
    expect(inTopic.replyToMessageId).toBeUndefined();
  });

  it('maps forum topics to threads; General and non-forum reply threads are no thread', async () => {
    expect((await inbound({ message: message({ chat: forum, text: 'x', message_thread_id: 77, is_topic_message: true }) })).threadId).toBe(
      '77',
    );
    expect(
      (await inbound({ message: message({ chat: forum, text: 'x', message_thread_id: 1, is_topic_message: true }) })).threadId,
    ).toBeUndefined();
    expect((await inbound({ message: message({ chat: forum, text: 'x' }) })).threadId).toBeUndefined();
    expect((await inbound({ message: message({ text: 'x', message_thread_id: 5 }) })).threadId).toBeUndefined();
  });

  it('ignores edits, service messages, bots, channel posts and unknown update kinds', async () => {
    expect(await classify({ edited_message: message({ text: '@parley_bot edited' }) })).toMatchObject({
      kind: 'ignored',
      reason: 'edited message',
    });
    expect(await classify({ message: message({ new_chat_members: [alice] }) })).toMatchObject({
      kind: 'ignored',
      reason: 'neither text nor an attachment (service message, poll, location...)',
    });
    expect(await classify({ message: message({ text: 'beep', from: { id: 99, is_bot: true, first_name: 'Other' } }) })).toMatchObject({
      kind: 'ignored',
    });
    expect(await classify({ message: message({ text: 'mine', from: { id: 42, is_bot: true, first_name: 'Parley' } }) })).toMatchObject({
      reason: 'my own message',
    });
    expect(await classify({ message: message({ text: 'news', chat: { id: -100999, type: 'channel', title: 'News' } }) })).toMatchObject({
      kind: 'ignored',
      reason: 'channel post',
    });
    expect(await classify({ poll: { id: 'p' } })).toMatchObject({ kind: 'ignored' });
  });

  it('reports photos, files, video, voice, audio and stickers as attachments, a caption as the text', async () => {
    const photo = [
      { file_id: 'p-small', file_unique_id: 'a', width: 90, height: 90, file_size: 1_000 },
      { file_id: 'p-large', file_unique_id: 'b', width: 800, height: 800, file_size: 50_000 },
    ];
    const captioned = await inbound({
      message: message({ photo, caption: 'look @parley_bot', caption_entities: [{ type: 'mention', offset: 5, length: 11 }] }),
    });
    expect(captioned).toMatchObject({
      text: 'look @parley_bot',
      mentionsBot: true,
      attachments: [{ kind: 'image', ref: 'p-large', mimeType: 'image/jpeg', size: 50_000 }],
    });
    const kinds = async (fields: Record<string, unknown>) => (await inbound({ message: message(fields) })).attachments;
    expect(await kinds({ photo })).toEqual([{ kind: 'image', ref: 'p-large', mimeType: 'image/jpeg', size: 50_000 }]);
    // A size getFile would refuse (over 20 MB) does not stand for the photo while a smaller one exists.
    const huge = { file_id: 'p-huge', file_unique_id: 'c', width: 9000, height: 9000, file_size: 21 * 1024 * 1024 };
    expect(await kinds({ photo: [...photo, huge] })).toEqual([{ kind: 'image', ref: 'p-large', mimeType: 'image/jpeg', size: 50_000 }]);
    expect(
      await kinds({ document: { file_id: 'd', file_unique_id: 'd', file_name: 'a.pdf', mime_type: 'application/pdf', file_size: 10 } }),
    ).toEqual([{ kind: 'file', ref: 'd', name: 'a.pdf', mimeType: 'application/pdf', size: 10 }]);
    expect(await kinds({ document: { file_id: 'i', file_unique_id: 'i', mime_type: 'image/png' } })).toEqual([
      { kind: 'image', ref: 'i', mimeType: 'image/png' },
    ]);
    expect(await kinds({ video: { file_id: 'v', file_unique_id: 'v', width: 1, height: 1, duration: 2, mime_type: 'video/mp4' } })).toEqual(
      [{ kind: 'video', ref: 'v', mimeType: 'video/mp4', durationSeconds: 2 }],
    );
    // A GIF comes as an animation plus the same file as a document: one attachment.
    const gif = { file_id: 'g', file_unique_id: 'g', width: 1, height: 1, duration: 1, mime_type: 'video/mp4' };
    expect(await kinds({ animation: gif, document: { file_id: 'g', file_unique_id: 'g', mime_type: 'video/mp4' } })).toEqual([
      { kind: 'video', ref: 'g', mimeType: 'video/mp4', durationSeconds: 1 },
    ]);
    expect(await kinds({ voice: { file_id: 'o', file_unique_id: 'o', duration: 3, mime_type: 'audio/ogg' } })).toEqual([
      // A voice note recorded in the app, with its length.
      { kind: 'audio', ref: 'o', mimeType: 'audio/ogg', durationSeconds: 3, voice: true },
    ]);
    expect(await kinds({ audio: { file_id: 'm', file_unique_id: 'm', duration: 3, file_name: 'song.mp3' } })).toEqual([
      { kind: 'audio', ref: 'm', name: 'song.mp3', durationSeconds: 3 },
    ]);
    expect(
      await kinds({
        sticker: {
          file_id: 's',
          file_unique_id: 's',
          type: 'regular',
          width: 1,
          height: 1,
          is_animated: false,
          is_video: false,
          emoji: '👍',
        },
      }),
    ).toEqual([{ kind: 'sticker', ref: 's', mimeType: 'image/webp', name: '👍' }]);
    // Text-less: still reported, with empty text (the core decides what to say).
    expect(await inbound({ message: message({ photo }) })).toMatchObject({ text: '', mentionsBot: false });
    // A broken file field makes the message malformed, not a crash.
    expect((await classify({ message: message({ photo: [{ file_size: 3 }] }) })).kind).toBe('malformed');
  });

  it('applies the allowlists to messages and button presses', async () => {
    const access: AccessPolicy = { allowedChats: new Set(['-1001234']), allowedUsers: new Set(['1001']) };
    expect((await classify({ message: message({ text: 'hi' }) }, access)).kind).toBe('message');
    expect(await classify({ message: message({ text: 'hi', chat: { ...group, id: -1009 } }) }, access)).toEqual({
      kind: 'ignored',
      reason: 'chat -1009 is not in TELEGRAM_ALLOWED_CHATS',
    });
    const bob = { id: 1002, is_bot: false, first_name: 'Bob' };
    expect(await classify({ message: message({ text: 'hi', from: bob }) }, access)).toEqual({
      kind: 'ignored',
      reason: 'user 1002 is not in TELEGRAM_ALLOWED_USERS',
    });
    const press = {
      id: 'q1',
      from: bob,
      chat_instance: 'c',
      data: 'ap:t:a',
      message: message({ from: { id: 42, is_bot: true, first_name: 'Parley' }, text: 'Approve?' }),
    };
    expect(await classify({ callback_query: press }, access)).toEqual({
      kind: 'ignored',
      reason: 'user 1002 is not in TELEGRAM_ALLOWED_USERS',
      callbackQueryId: 'q1',
    });
  });

  it('normalises a button press', async () => {
    const press = {
      id: 'q2',
      from: alice,
      chat_instance: 'c',
      data: 'ap:tok:d',
      message: message({ chat: forum, message_thread_id: 300, is_topic_message: true, text: 'Approve?' }),
    };
    expect(await classify({ callback_query: press })).toEqual({
      kind: 'button',
      press: {
        callbackQueryId: 'q2',
        channel: 'telegram',
        chatId: '-1001234',
        chatType: 'group',
        threadId: '300',
        messageId: '10',
        userId: '1001',
        displayName: 'Alice Liddell',
        payload: 'ap:tok:d',
      },
    });
    expect(await classify({ callback_query: { ...press, data: undefined } })).toMatchObject({ kind: 'ignored', callbackQueryId: 'q2' });
  });

  it('reports malformed payloads instead of throwing, keeping a callback id to answer', async () => {
    expect((await classifyUpdate(null, BOT, OPEN, 'telegram')).kind).toBe('malformed');
    expect((await classifyUpdate({ update_id: 'x' }, BOT, OPEN, 'telegram')).kind).toBe('malformed');
    expect(await classify({ message: { text: 'no chat' } })).toMatchObject({ kind: 'malformed' });
    expect(await classify({ callback_query: { id: 'q3', data: 'x' } })).toMatchObject({ kind: 'malformed', callbackQueryId: 'q3' });
    expect((await classify({ message: message({ text: 42 }) })).kind).toBe('malformed');
  });
});
