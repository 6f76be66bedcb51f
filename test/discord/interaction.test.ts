// The reply handle of a Discord interaction, with the real discord.js client and a sink standing in
// for the core: ack's text is an ephemeral reply (one callback, within 3 s); a whisper after it an
// ephemeral follow-up; a second ack does nothing; an ack later than the deadline finds the
// interaction deferred in time and its text arrives as a follow-up; a slash command the core
// acks and then answers in the chat gets that answer as its own reply, and one it acks without an
// answer leaves no "thinking…" behind.
import { afterEach, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../../adapters/discord/adapter.ts';
import { loadDiscordConfig } from '../../adapters/discord/config.ts';
import type { Action, Inbound, InboundSink, InteractionReply } from '../../src/core/types.ts';
import { FakeDiscord, type InteractionState } from '../fakes/discord/index.ts';
import { waitFor } from '../helpers/harness.ts';
import { discordEnv, RecordingLogger } from './helpers.ts';

const EPHEMERAL = 64;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function bare(sink: InboundSink, interactionDeadlineMs?: number) {
  const dc = await FakeDiscord.start();
  const log = new RecordingLogger();
  const adapter = new DiscordAdapter({
    config: loadDiscordConfig(discordEnv(dc))!,
    log,
    startTimeoutMs: 10_000,
    ...(interactionDeadlineMs ? { interactionDeadlineMs } : {}),
  });
  await adapter.start(sink);
  cleanups.push(async () => {
    await adapter.stop();
    await dc.close();
  });
  return { dc, adapter, log };
}

const ignoreMessages = async () => {};
const texts = (state: InteractionState) =>
  [state.original, ...state.followUps].filter((m) => m && !m.deleted).map((m) => ({ text: m!.message.content, ephemeral: m!.ephemeral }));

describe('discord: the reply handle of an interaction', () => {
  it('a click: ack with text is one ephemeral reply; a whisper follows; a second ack does nothing', async () => {
    const actions: Action[] = [];
    const { dc, adapter } = await bare({
      onMessage: ignoreMessages,
      async onAction(action) {
        actions.push(action);
        await action.reply.ack('Only Bob (who asked) or an admin can decide this.');
        await action.reply.ack('ignored');
        await action.reply.whisper('Ask Bob.');
      },
    });
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const prompt = await adapter.send(
      { channel: 'discord', chatId: dm.id, chatType: 'direct' },
      { text: 'Approve?', buttons: [[{ label: 'Approve', payload: 'tok-1' }]] },
    );
    const click = dc.click(alice, dc.messages.get(prompt.messageId)!.message, 'tok-1');
    const state = dc.interactions.get(click)!;
    await waitFor(() => state.followUps.length === 1, 'the whisper');
    expect(state.ack).toMatchObject({ type: 4, flags: EPHEMERAL });
    expect(state.ack!.at - state.createdAt).toBeLessThan(3_000);
    expect(state.refusedCallbacks).toBe(0);
    expect(texts(state)).toEqual([
      { text: 'Only Bob (who asked) or an admin can decide this.', ephemeral: true },
      { text: 'Ask Bob.', ephemeral: true },
    ]);
    expect(actions.map((a) => a.payload)).toEqual(['tok-1']);
  });

  it('a click the core acks after the deadline is deferred in time; the text follows', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { dc, adapter, log } = await bare(
      {
        onMessage: ignoreMessages,
        async onAction(action) {
          await released;
          await action.reply.ack('Approved.');
        },
      },
      300,
    );
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const prompt = await adapter.send(
      { channel: 'discord', chatId: dm.id, chatType: 'direct' },
      { text: 'Approve?', buttons: [[{ label: 'Approve', payload: 'tok-2' }]] },
    );
    const state = dc.interactions.get(dc.click(alice, dc.messages.get(prompt.messageId)!.message, 'tok-2'))!;
    const ack = await waitFor(() => state.ack, 'the deferral');
    expect(ack.type).toBe(6);
    release();
    await waitFor(() => state.followUps.length === 1, 'the late text');
    expect(texts(state)).toEqual([{ text: 'Approved.', ephemeral: true }]);
    expect(state.refusedCallbacks).toBe(0);
    expect(log.text()).toContain('deferred before the core acknowledged it');
  });

  it('a click whose handling throws still gets an answer', async () => {
    const { dc, adapter } = await bare({
      onMessage: ignoreMessages,
      async onAction() {
        throw new Error('database unreachable');
      },
    });
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const prompt = await adapter.send(
      { channel: 'discord', chatId: dm.id, chatType: 'direct' },
      { text: 'Approve?', buttons: [[{ label: 'Approve', payload: 'tok-3' }]] },
    );
    const state = dc.interactions.get(dc.click(alice, dc.messages.get(prompt.messageId)!.message, 'tok-3'))!;
    await waitFor(() => state.original, 'the answer');
    expect(texts(state)).toEqual([{ text: 'Something went wrong; please try again.', ephemeral: true }]);
  });

  it('a slash command: ack then an answer in the chat becomes its reply; ack alone leaves nothing behind', async () => {
    const handles: { inbound: Inbound; reply?: InteractionReply }[] = [];
    const { dc, adapter } = await bare({
      async onMessage(inbound, reply) {
        handles.push({ inbound, ...(reply ? { reply } : {}) });
        await reply?.ack();
        if (inbound.text === '/reset')
          await adapter.send(
            { channel: 'discord', chatId: inbound.chatId, chatType: inbound.chatType },
            { text: 'Started a fresh conversation.', replyToMessageId: inbound.messageId },
          );
      },
      onAction: async () => {},
    });
    const alice = dc.user('Alice');
    const { channels } = dc.guild('Team');
    const general = channels[0]!;
    const reset = dc.interactions.get(dc.slash(alice, general, 'reset'))!;
    await waitFor(() => reset.original?.message.content, 'the /reset reply');
    expect(reset.ack).toMatchObject({ type: 5, flags: 0 });
    expect(texts(reset)).toEqual([{ text: 'Started a fresh conversation.', ephemeral: false }]);
    expect(dc.botMessages(general).filter((m) => m.message.content === 'Started a fresh conversation.')).toHaveLength(1);

    const stop = dc.interactions.get(dc.slash(alice, general, 'stop'))!;
    await waitFor(() => stop.original?.deleted, 'the deferred reply deleted');
    expect(stop.ack!.type).toBe(5);
    expect(texts(stop)).toEqual([]);
    expect(handles.map((h) => [h.inbound.text, h.reply !== undefined])).toEqual([
      ['/reset', true],
      ['/stop', true],
    ]);
  });
});
