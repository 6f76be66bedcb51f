// A hostile group member cannot spend the owner's budget: messages per person per minute, messages
// waiting per conversation, tokens per person and per chat per day, and the length of one message,
// on the real core (temporary SQLite, the fake model). Admins are exempt.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

const MALLORY = { id: 'u-mallory', name: 'Mallory' };
const GROUP = 'memory:group-1';
const inGroup = { chatType: 'group' as const, mention: true, from: MALLORY };

/** Counts are per clock minute: a burst is started well inside one, so that it meets one window. */
async function insideOneMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

describe('limits', () => {
  it('200 mentions in a burst: at most the per-minute number of messages reach the model, and one "slow down" reply', async () => {
    const h = await createHarness({ env: { PARLEY_RATE_PER_MINUTE: '10', PARLEY_QUEUE_MAX: '0' } });
    h.model.setFallback(() => ({ text: 'ok', delayMs: 5 }));
    await insideOneMinute();
    await Promise.all(Array.from({ length: 200 }, (_, i) => h.adapter.say(`spam ${i}`, inGroup)));
    await settled(h.store, GROUP, 20_000);
    const asked = h.model.requests.flatMap((r) => r.body.messages.filter((m) => m.role === 'user').map((m) => m.content));
    // Each message reaches the model once at most (folded into turns); only the first 10 are read.
    expect(new Set(asked).size).toBeLessThanOrEqual(10);
    expect(h.model.requests.length).toBeLessThanOrEqual(10);
    const slowDown = h.adapter.botMessages('group-1').filter((m) => m.text.startsWith('Please slow down'));
    expect(slowDown).toHaveLength(1);
    expect(slowDown[0]!.text).toContain('10 messages a minute');
  });

  it('an admin is exempt, and the slow-down reply is in the language of the message', async () => {
    const h = await createHarness({ env: { PARLEY_RATE_PER_MINUTE: '2', PARLEY_ADMINS: 'memory:u-boss' } });
    h.model.setFallback(() => ({ text: 'ok' }));
    const boss = { id: 'u-boss', name: 'Boss' };
    await insideOneMinute();
    for (let i = 0; i < 4; i++) {
      await h.adapter.say(`question ${i}`, { from: boss });
      await settled(h.store, 'memory:dm-u-boss');
    }
    expect(h.model.requests).toHaveLength(4);
    for (let i = 0; i < 4; i++) await h.adapter.say(`问题 ${i}`, { from: MALLORY });
    await settled(h.store, 'memory:dm-u-mallory');
    const replies = h.adapter.botMessages('dm-u-mallory').map((m) => m.text);
    expect(replies.filter((t) => t.startsWith('请慢一点'))).toHaveLength(1);
  });

  it('a 1 MB message is cut to the limit, with a note to the model and to the sender', async () => {
    const h = await createHarness({ env: { PARLEY_MAX_MESSAGE_CHARS: '16000' } });
    h.model.enqueue({ text: 'Read it.' });
    const huge = `start ${'x'.repeat(1_000_000)} end`;
    await h.adapter.say(huge, inGroup);
    await settled(h.store, GROUP);
    expect(h.model.requests).toHaveLength(1);
    const sent = h.model.requests[0]!.body.messages.at(-1)!.content!;
    expect(sent.length).toBeLessThan(16_500);
    expect(sent).toContain('[Mallory] start xxx');
    expect(sent).not.toContain(' end');
    expect(sent).toContain('it was 1,000,010 characters long, and messages are limited to 16,000');
    expect(h.adapter.botMessages('group-1').map((m) => m.text)).toContain(
      'Your message was 1,000,010 characters long; I read only the first 16,000.',
    );
  });

  it('messages waiting in a busy conversation are capped; the excess is refused with one notice', async () => {
    const h = await createHarness({ env: { PARLEY_QUEUE_MAX: '3', PARLEY_RATE_PER_MINUTE: '0' } });
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    h.model.enqueue({ text: 'first answer', hold });
    h.model.setFallback(() => ({ text: 'later answer' }));
    await h.adapter.say('first', inGroup);
    await waitFor(() => h.model.requests.length === 1, 'the first turn to reach the model');
    for (let i = 0; i < 8; i++) await h.adapter.say(`waiting ${i}`, inGroup);
    release();
    await settled(h.store, GROUP);
    const asked = h.model.requests.slice(1).flatMap((r) => r.body.messages.filter((m) => m.role === 'user').map((m) => m.content ?? ''));
    expect(asked.filter((t) => t.includes('waiting 2'))).not.toHaveLength(0);
    expect(asked.filter((t) => t.includes('waiting 3'))).toHaveLength(0);
    const notices = h.adapter.botMessages('group-1').filter((m) => m.text.startsWith('I still have 3 messages'));
    expect(notices).toHaveLength(1);
  });

  it('a daily token budget per person: once spent, the bot says so once, with the time it resets', async () => {
    // Each answer costs 15 tokens (the fake's usage): two answers spend a budget of 20.
    const h = await createHarness({ env: { PARLEY_TOKENS_PER_PERSON_DAY: '20', PARLEY_RATE_PER_MINUTE: '0' } });
    h.model.setFallback(() => ({ text: 'ok' }));
    for (let i = 0; i < 5; i++) {
      await h.adapter.say(`question ${i}`, inGroup);
      await settled(h.store, GROUP);
    }
    expect(h.model.requests).toHaveLength(2);
    const spent = h.adapter.botMessages('group-1').filter((m) => m.text.startsWith("You have used today's budget of 20 tokens"));
    expect(spent).toHaveLength(1);
    expect(spent[0]!.text).toMatch(/from 00:00 UTC \(in (\d+ h )?(\d+ min)?\)/);
    // Another member of the chat still has a budget of their own.
    await h.adapter.say('my turn', { ...inGroup, from: { id: 'u-bob', name: 'Bob' } });
    await settled(h.store, GROUP);
    expect(h.model.requests).toHaveLength(3);
  });

  it('a daily token budget per chat holds for everyone in it', async () => {
    const h = await createHarness({ env: { PARLEY_TOKENS_PER_CHAT_DAY: '15', PARLEY_RATE_PER_MINUTE: '0' } });
    h.model.setFallback(() => ({ text: 'ok' }));
    for (const who of ['u-a', 'u-b', 'u-c']) {
      await h.adapter.say('hello', { ...inGroup, from: { id: who, name: who } });
      await settled(h.store, GROUP);
    }
    expect(h.model.requests).toHaveLength(1);
    expect(h.adapter.botMessages('group-1').filter((m) => m.text.startsWith("This chat has used today's budget"))).toHaveLength(1);
  });
});
