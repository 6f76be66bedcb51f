// What a Discord message carries reaches the core: files as attachments (kind from the content
// type, name, size, a fetchable ref), also when there is no text at all.
import { afterEach, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../../adapters/discord/adapter.ts';
import { loadDiscordConfig } from '../../adapters/discord/config.ts';
import type { Inbound } from '../../src/core/types.ts';
import { FakeDiscord } from '../fakes/discord/index.ts';
import { waitFor } from '../helpers/harness.ts';
import { discordEnv, RecordingLogger } from './helpers.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('discord: attachments', () => {
  it('a photo without text and a file with a caption arrive with their attachments', async () => {
    const dc = await FakeDiscord.start();
    const adapter = new DiscordAdapter({ config: loadDiscordConfig(discordEnv(dc))!, log: new RecordingLogger(), startTimeoutMs: 10_000 });
    const inbound: Inbound[] = [];
    await adapter.start({ onMessage: async (message) => void inbound.push(message), onAction: async () => {} });
    cleanups.push(async () => {
      await adapter.stop();
      await dc.close();
    });
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    dc.say(alice, dm, '', { files: [{ filename: 'cat.jpg', size: 34_567, contentType: 'image/jpeg' }] });
    dc.say(alice, dm, 'the report, please summarise', {
      files: [{ filename: 'report.pdf', size: 1_200_000, contentType: 'application/pdf' }],
    });
    dc.say(alice, dm, '');
    await waitFor(() => inbound.length >= 2, 'two messages');
    expect(inbound.map((m) => m.text)).toEqual(['', 'the report, please summarise']);
    expect(inbound[0]!.attachments).toEqual([
      {
        kind: 'image',
        name: 'cat.jpg',
        mimeType: 'image/jpeg',
        size: 34_567,
        // The fake's CDN, signed like Discord's (ex, is, hm).
        ref: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/attachments\/\d+\/\d+\/cat\.jpg\?ex=[0-9a-f]+&is=[0-9a-f]+&hm=[0-9a-f]+&$/),
      },
    ]);
    expect(inbound[1]!.attachments).toEqual([
      expect.objectContaining({ kind: 'file', name: 'report.pdf', mimeType: 'application/pdf', size: 1_200_000 }),
    ]);
  });
});
