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
});
