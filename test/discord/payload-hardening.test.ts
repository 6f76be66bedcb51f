// Gateway payloads that broke the adapter (or discord.js under it), pinned as examples: each goes
// over the fake gateway to the real discord.js client, and is either taken or dropped with one
// warning naming the field; nothing is thrown where no one catches it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../../adapters/discord/adapter.ts';
import { loadDiscordConfig } from '../../adapters/discord/config.ts';
import type { Action, Inbound } from '../../src/core/types.ts';
import { FakeDiscord, snowflake, type DChannel, type DUser } from '../fakes/discord/index.ts';
import { waitFor } from '../helpers/harness.ts';
import { discordEnv, RecordingLogger } from './helpers.ts';

let dc: FakeDiscord;
let adapter: DiscordAdapter;
let alice: DUser;
let dm: DChannel;
let general: DChannel;
const log = new RecordingLogger();
const messages = new Map<string, Inbound>();
const clicks: Action[] = [];
const escaped: unknown[] = [];
const onEscaped = (reason: unknown) => void escaped.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onEscaped);
  process.on('uncaughtException', onEscaped);
  dc = await FakeDiscord.start();
  adapter = new DiscordAdapter({ config: loadDiscordConfig(discordEnv(dc))!, log, startTimeoutMs: 10_000 });
  await adapter.start({
    onMessage: async (inbound) => void messages.set(inbound.messageId, inbound),
    onAction: async (action) => {
      clicks.push(action);
      await action.reply.ack();
    },
  });
  alice = dc.user('Alice');
  dm = dc.dm(alice);
  general = dc.guild('Team', ['general']).channels[0]!;
});

afterEach(() => {
  expect(escaped).toEqual([]);
  log.lines.length = 0;
});

afterAll(async () => {
  process.off('unhandledRejection', onEscaped);
  process.off('uncaughtException', onEscaped);
  await adapter.stop();
  await dc.close();
});

/** A DM from Alice as Discord sends it, with `fields` changed; returns its id. */
function dmWith(fields: Record<string, unknown>): string {
  const { event } = dc.compose(alice, dm, 'hello');
  const id = snowflake();
  dc.gateway.dispatch('MESSAGE_CREATE', { ...event, id, ...fields });
  return id;
}

/** A later ordinary DM is taken: everything dispatched before it has been handled. */
async function settled(): Promise<void> {
  const id = dmWith({});
  await waitFor(() => messages.get(id), 'an ordinary DM after it');
}

describe('discord payload hardening', () => {
  it('takes messages whose optional fields are null, which discord.js or the adapter used to throw on', async () => {
    // content: null threw out of the adapter (an unhandled rejection ends the process);
    // message_reference: null and embeds: null threw inside discord.js (as uncaught exceptions).
    const attachment = {
      id: snowflake(),
      filename: 'a.png',
      content_type: 'image/png',
      size: 3,
      url: 'https://cdn.example/a.png',
      proxy_url: 'https://cdn.example/a.png',
    };
    const ids = [
      dmWith({ content: null, attachments: [attachment] }),
      dmWith({ message_reference: null }),
      dmWith({ embeds: null, components: null, mentions: null }),
      // A null where discord.js expects a bit field threw BitFieldInvalid inside it.
      dmWith({ flags: null, author: { ...alice, public_flags: null } }),
    ];
    for (const id of ids) await waitFor(() => messages.get(id), `message ${id}`);
    expect(messages.get(ids[0]!)).toMatchObject({ text: '', attachments: [{ kind: 'image' }] });
  });

  it('takes a message whose type is null instead of reading it as a system message', async () => {
    const id = dmWith({ type: null });
    await waitFor(() => messages.get(id), 'the message');
    expect(messages.get(id)).toMatchObject({ text: 'hello', sender: { id: alice.id } });
  });

  it('takes a DM without channel_type from a channel discord.js has not seen', async () => {
    const channelId = snowflake();
    const id = dmWith({ channel_id: channelId, channel_type: undefined });
    await waitFor(() => messages.get(id), 'the message');
    expect(messages.get(id)).toMatchObject({ chatId: channelId, chatType: 'direct' });
  });

  it('drops a message without an author with one warning naming the field', async () => {
    const id = dmWith({ author: null });
    await settled();
    expect(messages.has(id)).toBe(false);
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      expect.stringMatching(/^dropped a malformed Discord MESSAGE_CREATE: author: /),
    ]);
  });

  it('acknowledges a click without entitlements or a channel object, in the channel its channel_id names', async () => {
    const prompt = await adapter.send(
      { channel: 'discord', chatId: general.id, chatType: 'group' },
      { text: 'Approve?', buttons: [[{ label: 'Approve', payload: 'ap:1:a' }]] },
    );
    const { id, event } = dc.press(alice, dc.messages.get(prompt.messageId)!.message, 'ap:1:a');
    const { channel: _channel, entitlements: _entitlements, ...rest } = event;
    dc.gateway.dispatch('INTERACTION_CREATE', rest);
    await waitFor(() => dc.interactions.get(id)!.ack, 'the acknowledgement');
    expect(clicks.at(-1)).toMatchObject({ chatId: general.id, chatType: 'group', userId: alice.id, payload: 'ap:1:a' });
  });

  it('shows the server nickname, falling back to the display name and the username when they are null or empty', async () => {
    const bob = dc.user('Bob', { globalName: null });
    const { event } = dc.compose(bob, general, 'hi', { mention: true });
    const named = snowflake();
    dc.gateway.dispatch('MESSAGE_CREATE', { ...event, id: named, member: { ...(event.member as object), nick: 'Bobby' } });
    const unnamed = snowflake();
    dc.gateway.dispatch('MESSAGE_CREATE', { ...event, id: unnamed, author: { ...bob, username: '' } });
    await waitFor(() => messages.get(named) && messages.get(unnamed), 'both messages');
    expect(messages.get(named)!.sender.displayName).toBe('Bobby');
    expect(messages.get(unnamed)!.sender.displayName).toBe(bob.id);
  });
});
