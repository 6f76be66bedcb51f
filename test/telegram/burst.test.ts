// Defect 4: answers lost in a burst. 60 chats (private chats and groups, two of them with three
// people asking at once) write at the same moment, for several rounds, through the real Telegram
// adapter (grammY) against the fake Bot API with flood control (30 messages/s overall, 20 per
// group per window), a few 5xx answers and lost responses, plus final renders that stay rate
// limited longer than the adapter's own retries and one answer Telegram refuses outright. Every
// accepted message must end in its complete answer, or an explicit error message, in its chat.
import { afterEach, describe, expect, it } from 'vitest';
import { errors, type FakeTelegram, type TgChat, type TgUser } from '../fakes/telegram/index.ts';
import type { RecordedRequest, Step } from '../fakes/model-server.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { closeTelegram, sessionKey, startTelegram } from './helpers.ts';

afterEach(closeTelegram);

const PRIVATE_CHATS = 48;
const GROUPS = 12;
const ROUNDS = 3;
/** Groups where three people ask in the same instant (one shared conversation). */
const BUSY_GROUPS = 2;
/** Refused in the first round; the chat's later answers must land as usual. */
const UNDELIVERABLE = 'c5r0u0';
const DELIVERY_ERROR = /could not deliver my answer/i;

interface Chat {
  index: number;
  chat: TgChat;
  people: TgUser[];
}

function filler(words: number): string {
  return Array.from({ length: words }, (_, i) => `w${i}`).join(' ');
}

/** Answers every question asked since the model last spoke; chats whose index is a multiple of 3 stream slowly. */
function answer(request: RecordedRequest): Step {
  const messages = request.body.messages;
  const since = messages.slice(messages.findLastIndex((m) => m.role === 'assistant') + 1);
  const markers = since
    .filter((m) => m.role === 'user')
    .flatMap((m) => [...String(m.content).matchAll(/\bq-(c(\d+)r\d+u\d+)\b/g)].map((x) => x[1]!));
  const slow = markers.some((m) => Number(/^c(\d+)/.exec(m)![1]) % 3 === 0);
  const text = `${markers.map((m) => `A-${m}`).join(' ')} ${filler(slow ? 60 : 8)} END-${markers.join('-')}`;
  return slow ? { text, chunkSize: 24, delayMs: 70 } : { text };
}

/** The complete answer to `marker` is shown by some bot message. */
function answered(tg: FakeTelegram, chat: TgChat, marker: string): boolean {
  return tg.botMessages(chat).some((m) => {
    const text = m.message.text ?? '';
    const end = /END-(\S+)$/.exec(text);
    return text.includes(`A-${marker} `) && end !== null && end[1]!.split('-').includes(marker);
  });
}

function endsWith(marker: string) {
  return (params: Record<string, unknown>) => String(params.text).endsWith(marker);
}

describe('telegram: a burst of chats under flood control', () => {
  it('every accepted message ends in its answer or an explicit error, over several rounds of 60 chats', { timeout: 240_000 }, async () => {
    const { tg, h } = await startTelegram({ env: { TELEGRAM_EDIT_INTERVAL_PRIVATE: '1s', TELEGRAM_EDIT_INTERVAL_GROUP: '3s' } });
    // Telegram's group budget is 20 per minute; the window is scaled to 10 s to keep the test short.
    tg.setRateLimits({ globalPerSecond: 30, groupLimit: 20, groupWindowMs: 10_000 });
    h.model.setFallback(answer);

    const chats: Chat[] = [];
    for (let i = 0; i < PRIVATE_CHATS; i++) {
      const person = tg.user(`P${i}`);
      chats.push({ index: i, chat: tg.privateChat(person), people: [person] });
    }
    for (let g = 0; g < GROUPS; g++) {
      const group = tg.group(`Group ${g}`, { supergroup: true });
      const people = Array.from({ length: g < BUSY_GROUPS ? 3 : 1 }, (_, u) => tg.user(`G${g}U${u}`));
      chats.push({ index: PRIVATE_CHATS + g, chat: group, people });
    }

    // Transient trouble: a few 5xx answers and lost responses (before and after taking effect).
    tg.failNext('editMessageText', { error_code: 502, description: 'Bad Gateway' }, { times: 3 });
    tg.failNext('sendMessage', { error_code: 500, description: 'Internal Server Error' }, { times: 2 });
    tg.dropNext('sendMessage', { applied: false, times: 2 });
    tg.dropNext('editMessageText', { applied: true, times: 2 });
    // Final renders rate limited longer than the adapter waits on its own (1 try + 5 retries):
    // a fast private answer (one sendMessage), a slow private one and a slow group one (edits).
    tg.failNext('sendMessage', errors.tooManyRequests(1), { times: 7, when: endsWith('END-c1r0u0') });
    tg.failNext('editMessageText', errors.tooManyRequests(1), { times: 7, when: endsWith('END-c3r0u0') });
    tg.failNext('editMessageText', errors.tooManyRequests(1), { times: 7, when: endsWith('END-c51r0u0') });
    // One answer Telegram refuses outright, however it is sent.
    const refused = (p: Record<string, unknown>) => String(p.text).includes(`A-${UNDELIVERABLE} `);
    tg.failNext('sendMessage', errors.badRequest('TEXT_INVALID'), { times: 1_000, when: refused });
    tg.failNext('editMessageText', errors.badRequest('TEXT_INVALID'), { times: 1_000, when: refused });

    const missing: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const asked: { chat: Chat; marker: string }[] = [];
      for (const chat of chats) {
        for (const [u, person] of chat.people.entries()) {
          const marker = `c${chat.index}r${round}u${u}`;
          const mention = chat.chat.type === 'private' ? '' : '@parley_test_bot ';
          tg.say(person, chat.chat, `${mention}q-${marker} please`);
          asked.push({ chat, marker });
        }
      }
      // The bot takes updates one at a time: wait until it has taken them all, then for the turns.
      await waitFor(() => tg.world.queue.length === 0, 'the bot to take every update', 120_000);
      for (const chat of chats) await settled(h.store, sessionKey(chat.chat), 120_000);
      const shown = (entry: { chat: Chat; marker: string }) =>
        entry.marker === UNDELIVERABLE
          ? tg.botMessages(entry.chat.chat).some((m) => DELIVERY_ERROR.test(m.message.text ?? ''))
          : answered(tg, entry.chat.chat, entry.marker);
      // Turns are recorded as done before their last edit lands: give the replies time to arrive.
      await waitFor(() => asked.every(shown), 'every reply to arrive', 60_000).catch(() => undefined);
      missing.push(...asked.filter((entry) => !shown(entry)).map((entry) => entry.marker));
    }

    expect(missing).toEqual([]);
    expect(tg.rateLimited).toBeGreaterThan(0);
    // The explicit error appears only where the answer could not be delivered.
    const errorChats = chats.filter((c) => tg.botMessages(c.chat).some((m) => DELIVERY_ERROR.test(m.message.text ?? '')));
    expect(errorChats.map((c) => c.index)).toEqual([5]);
    // Each turn's answer stayed in one message (no duplicate complete answers in a chat).
    for (const chat of chats) {
      const finals = tg
        .botMessages(chat.chat)
        .map((m) => m.message.text ?? '')
        .filter((t) => /END-\S+$/.test(t));
      expect(new Set(finals).size).toBe(finals.length);
    }
  });
});
