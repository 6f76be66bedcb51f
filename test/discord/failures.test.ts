import { afterEach, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../../adapters/discord/adapter.ts';
import { loadDiscordConfig } from '../../adapters/discord/config.ts';
import type { InboundSink } from '../../src/core/types.ts';
import { FakeDiscord } from '../fakes/discord/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { botMessages, closeDiscord, discordEnv, RecordingLogger, sessionKey, startDiscord } from './helpers.ts';

afterEach(closeDiscord);

const idle: InboundSink = { onMessage: async () => {}, onAction: async () => {} };

async function startError(dc: FakeDiscord, env: Record<string, string> = {}, managed = false): Promise<Error> {
  const log = new RecordingLogger();
  const adapter = new DiscordAdapter({ config: loadDiscordConfig(discordEnv(dc, env))!, log, startTimeoutMs: 10_000 });
  // As the app runs it: the gateway is an exclusive receiver, connected later under a lease.
  if (managed) adapter.exclusiveReceiver();
  const error = await adapter.start(idle).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  await adapter.stop().catch(() => {});
  if (!error) throw new Error('start() should have failed');
  expect(log.text()).not.toContain(dc.token);
  return error;
}

describe('discord: clear failures', () => {
  it('close code 4004 (token reset) stops start-up with one line naming the fix', async () => {
    const dc = await FakeDiscord.start();
    try {
      dc.tokenRevokedAtGateway = true;
      const error = await startError(dc);
      expect(error.message).toMatch(/4004/);
      expect(error.message).toMatch(/Developer Portal.*Bot → Reset Token/);
      expect(error.message).not.toContain('\n');
      expect(error.message).not.toContain(dc.token);
      expect(dc.gateway.identifies).toBe(1);
    } finally {
      await dc.close();
    }
  });

  it('a token REST refuses (401) gives the same kind of line', async () => {
    const dc = await FakeDiscord.start();
    try {
      const error = await startError(dc, { DISCORD_BOT_TOKEN: `${dc.token.slice(0, -4)}abcd` });
      expect(error.message).toMatch(/DISCORD_BOT_TOKEN.*Developer Portal/);
      expect(error.message).not.toContain('\n');
    } finally {
      await dc.close();
    }
  });

  it('as the app runs it (gateway under a lease), a refused token or an unreachable API still stops start-up with one line', async () => {
    const dc = await FakeDiscord.start();
    try {
      const refused = await startError(dc, { DISCORD_BOT_TOKEN: `${dc.token.slice(0, -4)}abcd` }, true);
      expect(refused.message).toMatch(/DISCORD_BOT_TOKEN.*Developer Portal/);
      expect(refused.message).not.toContain('\n');
      // Nothing listens on the API's port any more.
      const api = discordEnv(dc).DISCORD_API_ROOT!;
      await dc.close();
      const unreachable = await startError(dc, { DISCORD_API_ROOT: api }, true);
      expect(unreachable.message).toMatch(/could not reach Discord at/);
      expect(unreachable.message).not.toContain('\n');
    } finally {
      await dc.close().catch(() => {});
    }
  });

  it('close code 4014 (MessageContent not enabled) stops start-up with one line naming the switch', async () => {
    const dc = await FakeDiscord.start({ messageContent: false });
    try {
      const error = await startError(dc);
      expect(error.message).toMatch(/4014/);
      expect(error.message).toMatch(/Message Content Intent.*Developer Portal/);
      expect(error.message).not.toContain('\n');
      expect(dc.gateway.identifies).toBe(1);
    } finally {
      await dc.close();
    }
  });

  it('a bot removed from a channel is logged once, not retried forever', { timeout: 45_000 }, async () => {
    const { dc, h, log } = await startDiscord();
    const alice = dc.user('Alice');
    const { channels } = dc.guild('Team');
    const general = channels[0]!;
    dc.lockedOut.add(general.id);
    h.model.enqueue({ text: 'first' }, { text: 'second' });
    dc.say(alice, general, 'one', { mention: true });
    await settled(h.store, sessionKey(general), 20_000);
    dc.say(alice, general, 'two', { mention: true });
    await waitFor(() => h.model.requests.length === 2, 'the second turn', 20_000);
    await settled(h.store, sessionKey(general), 20_000);
    const gone = log.lines.filter((l) => l.msg?.includes('is gone for the bot'));
    expect(gone).toHaveLength(1);
    // The first 403 (typing or send) marks the channel; nothing is sent there again for a while.
    const tries = dc.calls.filter((c) => c.path.startsWith(`/channels/${general.id}/`));
    expect(tries.length).toBeGreaterThanOrEqual(1);
    expect(tries.length).toBeLessThanOrEqual(2);
    expect(tries.every((c) => c.status === 403)).toBe(true);
  });
});

describe('discord: duplicate deliveries', () => {
  it('a MESSAGE_CREATE delivered twice, also after a restart, is answered once', async () => {
    const dc = await FakeDiscord.start();
    const model = await FakeModelServer.start();
    try {
      const first = await startDiscord({ dc, model });
      const alice = dc.user('Alice');
      const dm = dc.dm(alice);
      model.enqueue({ text: 'answer one' }, { text: 'answer two' });
      const message = dc.say(alice, dm, 'only once please');
      dc.redeliver(message);
      await botMessages(dc, dm);
      await settled(first.h.store, sessionKey(dm));
      await first.h.stop();
      await first.adapter.stop();

      // A new process on the same database receives the old event again (a gateway replay).
      const second = await startDiscord({ dc, model, dbFile: first.h.dbFile });
      dc.redeliver(message);
      dc.say(alice, dm, 'and a new question');
      await waitFor(() => dc.botMessages(dm).some((m) => m.message.content === 'answer two'), 'the answer to the new question');
      await settled(second.h.store, sessionKey(dm));
      expect(model.requests).toHaveLength(2);
      expect(dc.botMessages(dm).map((m) => m.message.content)).toEqual(['answer one', 'answer two']);
    } finally {
      await closeDiscord();
      await model.close();
      await dc.close();
    }
  });

  it('resumes after a dropped gateway connection and answers what arrived meanwhile, once', async () => {
    const { dc, h } = await startDiscord();
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    h.model.enqueue({ text: 'got it after the resume' });
    dc.gateway.drop(4000);
    const message = dc.say(alice, dm, 'sent while you were away');
    dc.redeliver(message);
    await waitFor(() => dc.gateway.resumes >= 1 && dc.gateway.connected, 'the RESUME', 20_000);
    await waitFor(() => dc.botMessages(dm).some((m) => m.message.content === 'got it after the resume'), 'the answer', 20_000);
    await settled(h.store, sessionKey(dm));
    expect(dc.gateway.identifies).toBe(1);
    expect(h.model.requests).toHaveLength(1);
    expect(dc.botMessages(dm)).toHaveLength(1);
  }, 45_000);
});
