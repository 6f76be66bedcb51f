// /help in a Telegram group says how to address the bot there: by its @username (what people must
// type; the configured bot name is not a mention), or by replying to it.
import { afterEach, describe, expect, it } from 'vitest';
import { botMessages, closeTelegram, startTelegram } from './helpers.ts';

afterEach(closeTelegram);

describe('telegram: /help in a group', () => {
  it('names the @username to mention and the other ways to address the bot', async () => {
    const { tg } = await startTelegram();
    const group = tg.group('Team', { supergroup: true });
    tg.say(tg.user('Alice'), group, '/help@parley_test_bot');
    const [reply] = await botMessages(tg, group);
    expect(reply!.message.text).toContain(
      'In a group I only see messages addressed to me: mention me (@parley_test_bot), reply to one of my messages, or use a command.',
    );
  });
});
