// A reply piece sent again after a crash (the process died between sending it and recording where
// it went) makes no second message on Discord: the renderer keys each piece by turn, round and
// index, the adapter sends the key as a nonce with enforce_nonce, and Discord (here its wire-level
// fake) answers a repeated nonce with the first message, which the adapter brings to the new text.
import { afterEach, describe, expect, it } from 'vitest';
import { ReplyRenderer } from '../../src/gateway/renderer.ts';
import { silentLogger } from '../../src/log.ts';
import { waitFor } from '../helpers/harness.ts';
import { closeDiscord, startDiscord } from './helpers.ts';

afterEach(closeDiscord);

describe('discord: idempotent sends', () => {
  it('the same key makes one message (showing the later text); another key or none makes another', async () => {
    const { dc, adapter } = await startDiscord();
    const dm = dc.dm(dc.user('Alice'));
    const chat = { channel: 'discord', chatId: dm.id, chatType: 'direct' as const };
    const first = await adapter.send(chat, { text: 'Hel', idempotencyKey: 'turn-1:1:0' });
    const again = await adapter.send(chat, { text: 'Hello there.', idempotencyKey: 'turn-1:1:0' });
    expect(again.messageId).toBe(first.messageId);
    expect(dc.nonceRepeats).toBe(1);
    expect(dc.botMessages(dm).map((m) => m.message.content)).toEqual(['Hello there.']);

    await adapter.send(chat, { text: 'Second piece', idempotencyKey: 'turn-1:1:1' });
    await adapter.send(chat, { text: 'Unkeyed' });
    await adapter.send(chat, { text: 'Unkeyed' });
    expect(dc.botMessages(dm).map((m) => m.message.content)).toEqual(['Hello there.', 'Second piece', 'Unkeyed', 'Unkeyed']);
  });

  it('a continuation that never learnt of the sent message continues it instead of sending a copy', async () => {
    const { dc, adapter } = await startDiscord();
    const dm = dc.dm(dc.user('Bob'));
    const chat = { channel: 'discord', chatId: dm.id, chatType: 'direct' as const };
    const turnId = 'turn-crash';
    // The first process: streams the start of the answer, and dies before recording the message.
    const dying = new ReplyRenderer({
      adapter,
      chat,
      log: silentLogger,
      turnId,
      saveReplyState: async () => {
        throw new Error('killed before the message was recorded');
      },
    });
    dying.handle({ type: 'turn_start', turnId, sessionId: 's', resumed: false });
    dying.handle({ type: 'message_delta', turnId, round: 1, kind: 'text', text: 'The answer is' });
    await waitFor(() => dc.botMessages(dm).length === 1, 'the first message');
    await dying.close(); // nothing else comes from it (its typing stops)
    expect(dc.botMessages(dm).map((m) => m.message.content)).toEqual(['The answer is']);

    // The next process continues the turn from the journal: no reply state, round 1 again.
    const next = new ReplyRenderer({ adapter, chat, log: silentLogger, turnId, saveReplyState: async () => {} });
    next.handle({ type: 'turn_start', turnId, sessionId: 's', resumed: true, reply: { fromRound: 1, refs: [], rounds: [] } });
    next.handle({ type: 'message_delta', turnId, round: 1, kind: 'text', text: 'The answer is 42.' });
    next.handle({
      type: 'turn_end',
      turnId,
      status: 'done',
      text: 'The answer is 42.',
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      rounds: 1,
    });
    await next.close();
    expect(dc.botMessages(dm).map((m) => m.message.content)).toEqual(['The answer is 42.']);
    expect(dc.nonceRepeats).toBe(1);
  });
});
