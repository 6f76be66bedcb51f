// What the property tests found in Telegram payload normalisation, pinned as examples.
import { describe, expect, it } from 'vitest';
import { classifyUpdate } from './classify.ts';
import { InboundSchema } from '../../src/core/types.ts';

const BOT = { id: 42, username: 'parley_bot' };
const OPEN = { allowedChats: new Set<string>(), allowedUsers: new Set<string>() };
const alice = { id: 1001, is_bot: false, first_name: 'Alice' };
const group = { id: -1001234, type: 'supergroup', title: 'Team' };

function classify(message: Record<string, unknown>) {
  return classifyUpdate(
    { update_id: 9, message: { message_id: 10, from: alice, chat: group, date: 1_700_000_000, ...message } },
    BOT,
    OPEN,
    'telegram',
  );
}

describe('telegram payload hardening', () => {
  it('reports a date no clock can show as malformed instead of passing on an Invalid Date', async () => {
    for (const date of [1e15, 2 ** 53 - 1, -1]) {
      expect(await classify({ text: 'hi', date }), String(date)).toMatchObject({
        kind: 'malformed',
        reason: expect.stringMatching(/^update 9 message: date: /),
      });
    }
    const latest = await classify({ text: 'hi', date: 8_640_000_000_000 });
    expect(latest.kind).toBe('message');
    if (latest.kind === 'message') expect(InboundSchema.safeParse(latest.inbound).success).toBe(true);
  });

  it('keeps a message whose entities include ones that do not parse, and still sees the good mention', async () => {
    const entities = [
      { type: 'bold', offset: -3, length: 2 },
      { type: 'text_mention', offset: 0, length: 2, user: { id: 2 ** 53 + 2, is_bot: false, first_name: 'X' } },
      'not an entity',
      { type: 'mention', offset: 3, length: 11 },
      { type: 'mention', offset: 9_000_000, length: 5 },
    ];
    const result = await classify({ text: 'hi @parley_bot', entities });
    expect(result).toMatchObject({ kind: 'message', inbound: { text: 'hi @parley_bot', mentionsBot: true } });
  });

  it("makes people's text storable: NULs dropped, unpaired surrogates replaced, pairs kept", async () => {
    const result = await classify({ text: 'a\u0000b \ud800 \udc00 😀', from: { ...alice, first_name: 'Al\u0000ice\ud83d' } });
    expect(result.kind).toBe('message');
    if (result.kind !== 'message') return;
    expect(result.inbound.sender.displayName).toBe('Alice\ufffd');
    const core = InboundSchema.parse(result.inbound);
    expect(core.text).toBe('ab \ufffd \ufffd 😀');
    const press = await classifyUpdate(
      {
        update_id: 10,
        callback_query: {
          id: 'q',
          from: { ...alice, first_name: '\udfff' },
          chat_instance: 'c',
          data: 'x',
          message: { message_id: 1, chat: group, date: 0 },
        },
      },
      BOT,
      OPEN,
      'telegram',
    );
    expect(press).toMatchObject({ kind: 'button', press: { displayName: '\ufffd' } });
  });

  it('reads explicit nulls as absent fields, and a mention without entities as Telegram would have marked it', async () => {
    const result = await classify({
      from: { ...alice, last_name: null, username: null, language_code: null },
      text: 'hi @Parley_Bot!',
      entities: null,
      reply_to_message: null,
      message_thread_id: null,
      is_topic_message: null,
    });
    expect(result).toMatchObject({ kind: 'message', inbound: { sender: { id: '1001', displayName: 'Alice' }, mentionsBot: true } });
    expect(await classify({ text: 'mail me at x@parley_bot.example' })).toMatchObject({ inbound: { mentionsBot: false } });
    // first_name is sent empty for a user the Bot API server does not know.
    expect(await classify({ text: 'hi', from: { id: 1001, is_bot: false, first_name: '' } })).toMatchObject({
      inbound: { sender: { displayName: '1001' } },
    });
  });

  it('keeps a message whose file cannot be read, and names the file when nothing else is left', async () => {
    // photo: [] made Array.prototype.reduce throw out of the adapter.
    expect(await classify({ photo: [], caption: 'look' })).toMatchObject({ kind: 'message', inbound: { text: 'look', attachments: [] } });
    expect(await classify({ document: { file_id: '', file_unique_id: 'u' }, caption: 'see' })).toMatchObject({
      kind: 'message',
      inbound: { text: 'see', attachments: [] },
    });
    expect(await classify({ document: { file_id: '', file_unique_id: 'u' } })).toMatchObject({
      kind: 'malformed',
      reason: expect.stringMatching(/^update 9 message: document\.file_id: /),
    });
  });

  it('takes a message a chat sends as itself (an anonymous admin), not a channel post forwarded into the group', async () => {
    const anonymous = { id: 1087968824, is_bot: true, first_name: 'Group', username: 'GroupAnonymousBot' };
    const result = await classify({ from: anonymous, sender_chat: group, text: '@parley_bot status?' });
    expect(result).toMatchObject({
      kind: 'message',
      inbound: { sender: { id: String(group.id), displayName: 'Team', isBot: false }, mentionsBot: true },
    });
    const channel = { id: -100777, type: 'channel', title: 'News' };
    const forwarded = { from: { id: 136817688, is_bot: true, first_name: 'Channel', username: 'Channel_Bot' }, sender_chat: channel };
    expect(await classify({ ...forwarded, is_automatic_forward: true, text: 'news' })).toMatchObject({ kind: 'ignored' });
    // No sender at all is not something to pass over quietly.
    expect(await classify({ from: undefined, text: 'who am I?' })).toMatchObject({
      kind: 'malformed',
      reason: 'update 9 message: from: absent, and no sender_chat',
    });
  });
});
