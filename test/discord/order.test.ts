// The gateway delivers several channels' messages at once: they reach the core side by side, and
// one channel's in the order they came (a later one taken first could start the turn ahead of it).
import { afterEach, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../../adapters/discord/adapter.ts';
import { loadDiscordConfig } from '../../adapters/discord/config.ts';
import { FakeDiscord } from '../fakes/discord/index.ts';
import { waitFor } from '../helpers/harness.ts';
import { discordEnv, RecordingLogger } from './helpers.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('discord: message order', () => {
  it("takes other channels' messages while one waits, and one channel's in the order they came", async () => {
    const dc = await FakeDiscord.start();
    const adapter = new DiscordAdapter({ config: loadDiscordConfig(discordEnv(dc))!, log: new RecordingLogger(), startTimeoutMs: 10_000 });
    const events: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    await adapter.start({
      onMessage: async (message) => {
        events.push(`start ${message.text}`);
        if (message.text === 'a1') await slow;
        events.push(`end ${message.text}`);
      },
      onAction: async () => {},
    });
    cleanups.push(async () => {
      await adapter.stop();
      await dc.close();
    });
    cleanups.push(async () => release()); // before the adapter stops, even when an expectation failed
    const alice = dc.user('Alice');
    const bob = dc.user('Bob');
    const aliceDm = dc.dm(alice);
    dc.say(alice, aliceDm, 'a1');
    dc.say(bob, dc.dm(bob), 'b1');
    dc.say(alice, aliceDm, 'a2');

    await waitFor(() => events.includes('end b1'), "Bob's message taken while Alice's first one waits");
    expect(events).toEqual(['start a1', 'start b1', 'end b1']);
    release();
    await waitFor(() => events.includes('end a2'), "Alice's second message");
    expect(events).toEqual(['start a1', 'start b1', 'end b1', 'end a1', 'start a2', 'end a2']);
  });
});
