// Discord failures as the core's DeliveryError kinds, and what they do to later deliveries: a
// deleted message is 'gone' (the renderer sends anew) and leaves its channel usable; a channel the
// bot lost is 'forbidden', logged once and left alone.
import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { toDeliveryError } from '../../adapters/discord/errors.ts';
import { DeliveryError, deliveryFailureOf } from '../../src/core/delivery.ts';
import { closeDiscord, startDiscord } from './helpers.ts';

afterEach(closeDiscord);

const TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GfakeT.secretsecretsecretsecretsec';
const body = { body: undefined, files: undefined };
const api = (code: number, status: number, rawError: object = { message: 'x', code }) =>
  new DiscordAPIError(
    { message: 'x', code, ...rawError },
    code,
    status,
    'PATCH',
    `https://discord.com/api/v10/channels/1/messages/2?token=${TOKEN}`,
    body,
  );

describe('discord: platform failures → DeliveryError', () => {
  it.each([
    ['Unknown Message (10008)', api(10008, 404), { kind: 'gone' }],
    ['Unknown Channel (10003)', api(10003, 404), { kind: 'forbidden' }],
    ['Missing Access (50001)', api(50001, 403), { kind: 'forbidden' }],
    ['Missing Permissions (50013)', api(50013, 403), { kind: 'forbidden' }],
    ['DMs closed (50007)', api(50007, 403), { kind: 'forbidden' }],
    [
      'content too long (50035)',
      api(50035, 400, {
        errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
      }),
      { kind: 'too_large' },
    ],
    [
      'another invalid form body (50035)',
      api(50035, 400, { errors: { components: { _errors: [{ code: 'UNION_TYPE_CHOICES' }] } } }),
      { kind: 'fatal' },
    ],
    ['a 429 that reached us', api(0, 429, { retry_after: 1.5 }), { kind: 'rate_limited', retryAfterMs: 1500 }],
    [
      'a rejected rate limit',
      new RateLimitError({
        timeToReset: 2000,
        limit: 5,
        method: 'PATCH',
        hash: 'h',
        url: 'u',
        route: 'r',
        majorParameter: '1',
        global: false,
        retryAfter: 2000,
        sublimitTimeout: 0,
        scope: 'user',
      }),
      { kind: 'rate_limited', retryAfterMs: 2000 },
    ],
    ['a 502 after retries', new HTTPError(502, 'Bad Gateway', 'POST', 'u', body), { kind: 'transient' }],
    ['a timeout', Object.assign(new Error('This operation was aborted'), { name: 'AbortError' }), { kind: 'transient' }],
    ['401 Unauthorized', api(0, 401), { kind: 'fatal' }],
  ])('%s', (_what, raw, expected) => {
    const error = toDeliveryError(raw, TOKEN);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(deliveryFailureOf(error)).toEqual(expected);
    expect(error.message).not.toContain(TOKEN);
  });

  it('a deleted message is gone; the channel stays usable', async () => {
    const { dc, adapter } = await startDiscord();
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const chat = { channel: 'discord', chatId: dm.id, chatType: 'direct' as const };
    const sent = await adapter.send(chat, { text: 'soon deleted' });
    dc.deleteMessage(sent.messageId);
    const failure = await adapter.edit(sent, { text: 'edited' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(deliveryFailureOf(failure).kind).toBe('gone');
    // The next message in the same channel goes out (was: the channel was shut for 10 minutes).
    const next = await adapter.send(chat, { text: 'still here' });
    expect(dc.messages.get(next.messageId)?.message.content).toBe('still here');
  });

  it('a channel the bot was removed from is forbidden, tried once and logged once', async () => {
    const { dc, adapter, log } = await startDiscord();
    const { channels } = dc.guild('Team');
    const general = channels[0]!;
    dc.lockedOut.add(general.id);
    const chat = { channel: 'discord', chatId: general.id, chatType: 'group' as const };
    for (let i = 0; i < 3; i++) {
      const failure = await adapter.send(chat, { text: `try ${i}` }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(deliveryFailureOf(failure).kind).toBe('forbidden');
    }
    expect(dc.callsTo('POST', new RegExp(`^/channels/${general.id}/messages$`))).toHaveLength(1);
    expect(log.lines.filter((l) => l.msg?.includes('is gone for the bot'))).toHaveLength(1);
  });
});
