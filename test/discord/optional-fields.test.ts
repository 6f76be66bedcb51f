// Real-shaped Discord gateway events (a DM, a mention in a guild channel, a button click, as the fake
// Discord builds them) with the fields Parley can do without absent, null or empty and unknown
// fields added, dispatched over the fake gateway to the real discord.js client and adapter: each is
// still taken, with the same sender, chat, text and mention, and a click is still acknowledged.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../../adapters/discord/adapter.ts';
import { loadDiscordConfig } from '../../adapters/discord/config.ts';
import { InboundSchema, type Action, type Inbound } from '../../src/core/types.ts';
import { FakeDiscord, snowflake } from '../fakes/discord/index.ts';
import { waitFor } from '../helpers/harness.ts';
import { asJson, optionalFieldVariants, type FieldRule } from '../telegram/optional-fields.ts';
import { discordEnv, RecordingLogger } from './helpers.ts';

const RUNS = 40;

/**
 * What Parley or discord.js cannot do without: ids, the author, the content and (for the mention)
 * the mentions of a message; an interaction's token, application, channel id, invoker, data and
 * message, and its type. Everything else may be missing.
 */
const ESSENTIAL_KEYS = new Set([
  'id',
  'token',
  'application_id',
  'channel_id',
  'author',
  'content',
  'mentions',
  'custom_id',
  'component_type',
]);
const ESSENTIAL_PATHS = new Set(['type', 'data', 'message', 'member', 'member.user', 'user', 'channel.type']);

function rule(path: readonly string[]): FieldRule {
  return ESSENTIAL_KEYS.has(path.at(-1)!) || ESSENTIAL_PATHS.has(path.join('.')) ? 'required' : 'optional';
}

let dc: FakeDiscord;
let adapter: DiscordAdapter;
const log = new RecordingLogger();
const messages = new Map<string, Inbound>();
const clicks = new Map<string, Action>();

beforeAll(async () => {
  dc = await FakeDiscord.start();
  adapter = new DiscordAdapter({ config: loadDiscordConfig(discordEnv(dc))!, log, startTimeoutMs: 10_000 });
  await adapter.start({
    onMessage: async (inbound) => void messages.set(inbound.eventId, inbound),
    onAction: async (action) => {
      clicks.set(action.messageId, action);
      await action.reply.ack();
    },
  });
});

afterAll(async () => {
  await adapter.stop();
  await dc.close();
});

function quiet(): void {
  expect(log.lines.filter((l) => l.level === 'warn' || l.level === 'error').map((l) => l.msg)).toEqual([]);
}

describe('discord: optional fields absent, null or empty', () => {
  it('takes a DM and a guild mention whatever optional fields they lack', { timeout: 60_000 }, async () => {
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const bob = dc.user('Bob', { globalName: null });
    const { channels } = dc.guild('Team', ['general']);
    const general = channels[0]!;
    const earlier = dc.say(alice, general, 'lunch?');
    const cases = [
      {
        name: 'DM',
        template: dc.compose(alice, dm, 'what is the weather?').event,
        sender: alice,
        // A new DM each time: discord.js also has to make the channel from the event.
        chatId: () => snowflake(),
        text: 'what is the weather?',
        mentionsBot: false,
      },
      {
        name: 'guild mention',
        template: dc.compose(bob, general, 'when is lunch?', { mention: true, replyTo: earlier }).event,
        sender: bob,
        chatId: () => general.id,
        text: `@${dc.bot.username} when is lunch?`,
        mentionsBot: true,
      },
    ];
    for (const c of cases) {
      await fc.assert(
        fc.asyncProperty(optionalFieldVariants(asJson(c.template), rule), async ({ payload }) => {
          const id = snowflake();
          const chatId = c.chatId();
          dc.gateway.dispatch('MESSAGE_CREATE', { ...payload, id, channel_id: chatId });
          const inbound = await waitFor(
            () => messages.get(id),
            `the ${c.name} to be taken; log: ${log.text().split('\n').slice(-2).join(' | ')}`,
            5_000,
          );
          expect(InboundSchema.safeParse(inbound).success).toBe(true);
          expect(inbound).toMatchObject({
            chatId,
            chatType: c.name === 'DM' ? 'direct' : 'group',
            sender: { id: c.sender.id, isBot: false },
            text: c.text,
            mentionsBot: c.mentionsBot,
          });
          expect(inbound.sender.displayName).not.toBe('');
        }),
        { seed: 7, numRuns: RUNS, endOnFailure: true },
      );
    }
    quiet();
  });

  it('takes and acknowledges a button click whatever optional fields it lacks', { timeout: 60_000 }, async () => {
    const carol = dc.user('Carol');
    const { channels } = dc.guild('Ops', ['ops']);
    const ops = channels[0]!;
    const prompt = await adapter.send(
      { channel: 'discord', chatId: ops.id, chatType: 'group' },
      { text: 'Run the tool?', buttons: [[{ label: 'Approve', payload: 'ap:tok1:a' }]] },
    );
    const message = dc.messages.get(prompt.messageId)!.message;
    const template = asJson(dc.press(carol, message, 'ap:tok1:a').event);
    await fc.assert(
      fc.asyncProperty(optionalFieldVariants(template, rule), async ({ payload }) => {
        const { id, event } = dc.press(carol, message, 'ap:tok1:a');
        clicks.clear();
        dc.gateway.dispatch('INTERACTION_CREATE', { ...payload, id, token: event.token });
        const state = dc.interactions.get(id)!;
        await waitFor(() => state.ack, `the click to be acknowledged; log: ${log.text().split('\n').slice(-2).join(' | ')}`, 5_000);
        expect(state.ack!.type).toBe(6);
        expect(clicks.get(message.id), log.text().split('\n').slice(-3).join(' | ')).toMatchObject({
          chatId: ops.id,
          chatType: 'group',
          messageId: message.id,
          userId: carol.id,
          payload: 'ap:tok1:a',
        });
        expect(clicks.get(message.id)!.displayName).not.toBe('');
      }),
      { seed: 7, numRuns: RUNS, endOnFailure: true },
    );
    quiet();
  });
});
