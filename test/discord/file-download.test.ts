// fetchAttachment through the real adapter and discord.js against the fake Discord and its CDN: a
// photo, a voice message (flags 8192) and a PDF come back byte for byte from their signed URLs; an
// expired URL is renewed with POST /attachments/refresh-urls and then served; a deleted file, a
// file over the cap and a URL off Discord's CDN each give their reason; the CDN never sees the token.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { download, MB, refusal } from '../helpers/attachment-download.ts';
import { DiscordAdapter } from '../../adapters/discord/adapter.ts';
import { loadDiscordConfig } from '../../adapters/discord/config.ts';
import type { Attachment, Inbound } from '../../src/core/types.ts';
import { FakeDiscord } from '../fakes/discord/index.ts';
import { JPEG, PDF, PNG, VOICE, VOICE_SECONDS } from '../helpers/media-fixtures.ts';
import { waitFor } from '../helpers/harness.ts';
import { discordEnv, RecordingLogger } from './helpers.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup() {
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
  const reported = (n: number): Promise<Attachment[]> => waitFor(() => inbound[n - 1]?.attachments, `message ${n}`);
  return { dc, adapter, alice, dm, reported };
}

function refreshCalls(dc: FakeDiscord) {
  return dc.calls.filter((c) => c.method === 'POST' && c.path === '/attachments/refresh-urls');
}

describe('discord: downloading attachments', () => {
  it('a photo, a voice message and a PDF come back byte for byte from their signed CDN URLs', async () => {
    const { dc, adapter, alice, dm, reported } = await setup();
    dc.say(alice, dm, 'what is this?', {
      files: [{ filename: 'error.png', contentType: 'image/png', bytes: PNG.bytes, width: 320, height: 200 }],
    });
    dc.say(alice, dm, '', { voice: { bytes: VOICE.bytes, durationSecs: VOICE_SECONDS } });
    dc.say(alice, dm, '', { files: [{ filename: 'report.pdf', contentType: 'application/pdf', bytes: PDF.bytes }] });

    const [photo] = await reported(1);
    expect(photo).toMatchObject({ kind: 'image', name: 'error.png', size: PNG.bytes.length });
    const image = await download(adapter, photo!);
    expect(image.bytes.equals(PNG.bytes)).toBe(true);
    expect(image).toMatchObject({ contentType: 'image/png', size: PNG.bytes.length });
    const [voice] = await reported(2);
    expect(voice).toMatchObject({
      kind: 'audio',
      name: 'voice-message.ogg',
      mimeType: 'audio/ogg',
      voice: true,
      durationSeconds: VOICE_SECONDS,
    });
    expect((await download(adapter, voice!)).bytes.equals(VOICE.bytes)).toBe(true);
    const [pdf] = await reported(3);
    expect((await download(adapter, pdf!)).bytes.equals(PDF.bytes)).toBe(true);
    expect(refreshCalls(dc)).toHaveLength(0);
    expect(dc.cdn.requests).toHaveLength(3);
    expect(dc.cdn.requests.filter((r) => r.authorization !== undefined)).toEqual([]);
  });

  it('an expired URL is renewed through POST /attachments/refresh-urls and then served', async () => {
    const { dc, adapter, alice, dm, reported } = await setup();
    dc.say(alice, dm, '', { files: [{ filename: 'photo.jpg', contentType: 'image/jpeg', bytes: JPEG.bytes }] });
    const [photo] = await reported(1);
    // A day later by the CDN's clock: the URL answers 404 "This content is no longer available."
    dc.cdn.expireAll();
    const image = await download(adapter, photo!);
    expect(image.bytes.equals(JPEG.bytes)).toBe(true);
    expect(refreshCalls(dc).map((c) => c.body)).toEqual([{ attachment_urls: [photo!.ref] }]);
    expect(dc.cdn.requests.map((r) => r.status)).toEqual([404, 200]);

    // A URL whose `ex` has passed by our own clock is renewed before it is tried.
    const stale = { ...photo!, ref: photo!.ref.replace(/ex=[0-9a-f]+/, `ex=${Math.floor(Date.now() / 1000 - 60).toString(16)}`) };
    expect((await download(adapter, stale)).bytes.equals(JPEG.bytes)).toBe(true);
    expect(refreshCalls(dc)).toHaveLength(2);
    expect(dc.cdn.requests.map((r) => r.status)).toEqual([404, 200, 200]);
  });

  it('an expired link Discord does not renew → expired', async () => {
    const { dc, adapter, alice, dm, reported } = await setup();
    dc.say(alice, dm, '', { files: [{ filename: 'photo.jpg', contentType: 'image/jpeg', bytes: JPEG.bytes }] });
    const [photo] = await reported(1);
    dc.cdn.expireAll();
    dc.cdn.renewsNothing = true;
    const error = await refusal(download(adapter, photo!));
    expect(error).toMatchObject({ reason: 'expired', message: 'the link to the file expired and Discord would not renew it' });
    expect(refreshCalls(dc)).toHaveLength(1);
    expect(dc.cdn.requests.map((r) => r.status)).toEqual([404]);
  });

  it('a URL that looks valid but the CDN refuses (404) is renewed once; a deleted file is then not-found', async () => {
    const { dc, adapter, alice, dm, reported } = await setup();
    const message = dc.say(alice, dm, '', { files: [{ filename: 'report.pdf', contentType: 'application/pdf', bytes: PDF.bytes }] });
    const [pdf] = await reported(1);
    dc.cdn.delete(message.attachments[0]!.id);
    const gone = await refusal(download(adapter, pdf!));
    expect(gone).toMatchObject({ reason: 'not-found', message: 'Discord no longer has this file (deleted, or its link expired)' });
    expect(refreshCalls(dc)).toHaveLength(1);
    expect(dc.cdn.requests.map((r) => r.status)).toEqual([404, 404]);
  });

  it('over the cap → too-large before any request; a URL off the CDN is refused; the CDN never gets the token', async () => {
    const { dc, adapter, alice, dm, reported } = await setup();
    dc.say(alice, dm, '', { files: [{ filename: 'big.pdf', contentType: 'application/pdf', size: 30 * MB }] });
    const [big] = await reported(1);
    expect(await refusal(download(adapter, big!, 25 * MB))).toMatchObject({
      reason: 'too-large',
      message: 'the file is 30 MB, over the 25 MB limit',
    });
    expect(dc.cdn.requests).toHaveLength(0);

    // Somewhere else entirely: never fetched.
    let reached = 0;
    const elsewhere = createServer((_req, res) => {
      reached++;
      res.end('secret');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.2', resolve));
    cleanups.push(() => new Promise((resolve) => elsewhere.close(() => resolve())));
    const other = `http://127.0.0.2:${(elsewhere.address() as AddressInfo).port}/attachments/1/2/x.png`;
    const refused = await refusal(download(adapter, { kind: 'image', ref: other }));
    expect(refused.reason).toBe('refused');
    expect(reached).toBe(0);
  });
});
