// Real-shaped Telegram updates (a private message, a mention in a group, a button press, as the fake
// Bot API builds them) with their optional fields absent, null or empty and unknown fields added,
// delivered by getUpdates to the real grammY bot and adapter: each is still taken, with the same
// sender, chat, text and mention, and a button press is still answered.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TelegramAdapter } from '../../adapters/telegram/adapter.ts';
import { loadTelegramConfig } from '../../adapters/telegram/config.ts';
import { InboundSchema, type Action, type Inbound } from '../../src/core/types.ts';
import { FakeTelegram, TelegramWorld } from '../fakes/telegram/index.ts';
import { waitFor } from '../helpers/harness.ts';
import { drained, RecordingLogger } from './helpers.ts';
import { asJson, optionalFieldVariants, type FieldRule } from './optional-fields.ts';

const RUNS = 40;

/** Bot API fields every object of its kind has (an id, a chat's type, a date...). */
const ALWAYS_SENT = new Set(['update_id', 'id', 'type', 'message_id', 'chat', 'date', 'is_bot', 'chat_instance', 'inline_keyboard']);
/** What Parley cannot do without: the sender, the text, the button's data and message. */
const ESSENTIAL = new Set([
  'message',
  'message.from',
  'message.text',
  'callback_query.from',
  'callback_query.data',
  'callback_query.message',
]);

function rule(path: readonly string[]): FieldRule {
  const key = path.at(-1)!;
  if (ALWAYS_SENT.has(key) || ESSENTIAL.has(path.join('.'))) return 'required';
  // Always sent, but empty for a user the Bot API server does not know (telegram-bot-api's JsonUser).
  return key === 'first_name' ? 'empty-only' : 'optional';
}

let tg: FakeTelegram;
let adapter: TelegramAdapter;
const log = new RecordingLogger();
const messages = new Map<string, Inbound>();
const presses = new Map<string, Action>();

beforeAll(async () => {
  tg = await FakeTelegram.start();
  const config = loadTelegramConfig({ TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot })!;
  adapter = new TelegramAdapter({ config, log });
  await adapter.start({
    onMessage: async (inbound) => void messages.set(inbound.eventId, inbound),
    onAction: async (action) => {
      presses.set(action.messageId, action);
      await action.reply.ack();
    },
  });
});

afterAll(async () => {
  await adapter.stop();
  await tg.close();
});

/** Templates from a world of their own: what the fake would send for these events. */
function templates() {
  const world = new TelegramWorld(tg.bot);
  const alice = world.user('Alice', { lastName: 'Liddell', username: 'alice', premium: true });
  const dm = world.privateChat(alice);
  const greeting = world.store(world.state(dm.id)!, { from: world.bot, text: 'Hi! How can I help?' });
  const privateMessage = world.say(alice, dm, 'what is the weather?', { replyTo: greeting.message_id }).update;

  const bob = world.user('Bob', { username: 'bob_b' });
  const team = world.group('Team');
  const lunch = world.say(alice, team, 'lunch?').message;
  const mention = world.say(bob, team, `hey @${tg.bot.username}, when is lunch?`, { replyTo: lunch.message_id }).update;

  const carol = world.user('Carol');
  const ops = world.group('Ops', { supergroup: true });
  const prompt = world.store(world.state(ops.id)!, {
    from: world.bot,
    text: 'Run the tool?',
    reply_markup: { inline_keyboard: [[{ text: 'Approve', callback_data: 'ap:tok1:a' }]] },
  });
  const queryId = world.click(carol, ops, prompt.message_id, 'Approve');
  const press = { callback_query: world.callbacks.get(queryId)!.query };
  return { privateMessage, mention, press, alice, bob, carol, dm, team, ops, prompt };
}

describe('telegram: optional fields absent, null or empty', () => {
  it('takes a private message and a group mention whatever optional fields they lack', { timeout: 60_000 }, async () => {
    const t = templates();
    const cases = [
      { name: 'private message', update: t.privateMessage, sender: t.alice, chat: t.dm, chatType: 'direct', mentionsBot: false },
      { name: 'group mention', update: t.mention, sender: t.bob, chat: t.team, chatType: 'group', mentionsBot: true },
    ] as const;
    for (const c of cases) {
      const { update_id: _id, ...body } = asJson(c.update);
      await fc.assert(
        fc.asyncProperty(optionalFieldVariants(body, rule), async ({ payload }) => {
          const updateId = tg.injectRaw(payload);
          await drained(tg);
          const inbound = messages.get(`${tg.bot.id}:${updateId}`);
          expect(inbound, `${c.name} not taken; log: ${log.text().split('\n').slice(-2).join(' | ')}`).toBeDefined();
          expect(InboundSchema.safeParse(inbound).success).toBe(true);
          expect(inbound).toMatchObject({
            chatId: String(c.chat.id),
            chatType: c.chatType,
            sender: { id: String(c.sender.id), isBot: false },
            text: c.update.message!.text,
            mentionsBot: c.mentionsBot,
          });
          expect(inbound!.sender.displayName).not.toBe('');
        }),
        { seed: 7, numRuns: RUNS, endOnFailure: true },
      );
    }
    expect(log.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });

  it('takes and answers a button press whatever optional fields it lacks', { timeout: 60_000 }, async () => {
    const t = templates();
    const { callback_query: template } = asJson(t.press) as { callback_query: Record<string, never> };
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        optionalFieldVariants(template, (path) => rule(['callback_query', ...path])),
        async ({ payload }) => {
          const id = `q-variant-${++n}`;
          tg.injectCallback({ ...payload, id });
          await waitFor(() => tg.answersTo(id).length === 1, `an answer to ${id}`);
          const press = presses.get(String(t.prompt.message_id));
          expect(press).toMatchObject({ chatId: String(t.ops.id), chatType: 'group', userId: String(t.carol.id), payload: 'ap:tok1:a' });
          expect(press!.displayName).not.toBe('');
          presses.clear();
        },
      ),
      { seed: 7, numRuns: RUNS, endOnFailure: true },
    );
    expect(log.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });
});
