// Two Telegram bots in one process (instance ids 'telegram' and 'telegram-2', each with its own fake
// Bot API): the same person in the "same" chat id has one conversation per bot, and a button token
// from one bot's approval prompt pressed through the other bot is refused and changes nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TelegramAdapter } from '../../adapters/telegram/adapter.ts';
import { loadTelegramConfig } from '../../adapters/telegram/config.ts';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';
import { RecordingLogger } from './helpers.ts';

const fakes: FakeTelegram[] = [];
afterEach(async () => {
  await closeAll();
  while (fakes.length) await fakes.pop()!.close();
});

async function bot(id: string, botId: number, username: string): Promise<{ tg: FakeTelegram; adapter: TelegramAdapter }> {
  const tg = await FakeTelegram.start({ id: botId, username });
  fakes.push(tg);
  const config = loadTelegramConfig({
    TELEGRAM_BOT_TOKEN: tg.token,
    TELEGRAM_API_ROOT: tg.apiRoot,
    TELEGRAM_EDIT_INTERVAL_PRIVATE: '40ms',
  })!;
  return { tg, adapter: new TelegramAdapter({ config, log: new RecordingLogger(), id }) };
}

describe('telegram: two bots in one process', () => {
  it('keeps separate sessions and refuses a button token pressed through the other bot', async () => {
    const deployed: string[] = [];
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploy a service',
      parameters: z.object({ service: z.string() }),
      approval: 'always',
      describe: ({ service }) => `deploy ${service}`,
      async execute({ service }) {
        deployed.push(service);
        return `deployed ${service}`;
      },
    }) as AnyTool;
    const one = await bot('telegram', 7_000_001, 'first_bot');
    const two = await bot('telegram-2', 7_000_002, 'second_bot');
    const h = await createHarness({ adapters: [one.adapter, two.adapter], tools: [deploy] });

    // The same person (same user id in both fakes) writes to each bot.
    const aliceOne = one.tg.user('Alice');
    const aliceTwo = two.tg.user('Alice');
    expect(aliceOne.id).toBe(aliceTwo.id);
    const dmOne = one.tg.privateChat(aliceOne);
    const dmTwo = two.tg.privateChat(aliceTwo);
    h.model.enqueue({ text: 'Hello from the first bot.' });
    one.tg.say(aliceOne, dmOne, 'hi first');
    await waitFor(() => one.tg.botMessages(dmOne).some((m) => m.message.text === 'Hello from the first bot.'), 'the first answer');
    await settled(h.store, `telegram:${dmOne.id}`);
    h.model.enqueue({ text: 'Hello from the second bot.' });
    two.tg.say(aliceTwo, dmTwo, 'hi second');
    await waitFor(() => two.tg.botMessages(dmTwo).some((m) => m.message.text === 'Hello from the second bot.'), 'the second answer');
    await settled(h.store, `telegram-2:${dmTwo.id}`);
    // The second bot's model request carries only its own conversation.
    const second = JSON.stringify(h.model.requests.at(-1)!.body.messages);
    expect(second).toContain('hi second');
    expect(second).not.toContain('hi first');
    const sessions = await h.store.sessions.list();
    expect(sessions.map((s) => s.key).sort()).toEqual([`telegram-2:${dmTwo.id}`, `telegram:${dmOne.id}`]);
    expect(one.tg.botMessages(dmOne).map((m) => m.message.text)).not.toContain('Hello from the second bot.');

    // The first bot asks for an approval; its token pressed through the second bot is refused.
    h.model.enqueue({ toolCalls: [{ name: 'deploy', arguments: { service: 'api' } }] }, { text: 'Deployed.' });
    one.tg.say(aliceOne, dmOne, 'deploy the api');
    const prompt = await waitFor(() => one.tg.botMessages(dmOne).find((m) => m.message.reply_markup), 'the approval prompt');
    const approve = prompt.message.reply_markup!.inline_keyboard.flat().find((b) => b.text === 'Approve')!;
    const copy = await two.adapter.send(
      { channel: 'telegram-2', chatId: String(dmTwo.id), chatType: 'direct' },
      { text: 'A copied button', buttons: [[{ label: 'Approve', payload: approve.callback_data! }]] },
    );
    const forged = two.tg.click(aliceTwo, dmTwo, Number(copy.messageId), 'Approve');
    await waitFor(() => two.tg.answersTo(forged).length === 1, 'the refusal');
    expect(two.tg.answersTo(forged)[0]!.text).toBe('This approval request belongs to another chat.');
    expect(await h.store.approvals.list({ status: 'pending', limit: 10 })).toHaveLength(1);
    expect(deployed).toEqual([]);

    // Through its own bot it works.
    const real = one.tg.click(aliceOne, dmOne, prompt.message.message_id, 'Approve');
    await waitFor(() => one.tg.answersTo(real)[0]?.text === 'Approved.', 'the approval');
    await settled(h.store, `telegram:${dmOne.id}`);
    expect(deployed).toEqual(['api']);
    expect(two.tg.botMessages(dmTwo).map((m) => m.message.text)).not.toContain('Deployed.');
  });
});
