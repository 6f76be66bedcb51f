// fetchAttachment through the real adapter and the Lark SDK's HTTP client against the fake open
// platform: an image, a file, a voice note (message type audio) and the image in a post come back
// byte for byte from im/v1/messages/:id/resources/:key with the right `type`; a withdrawn message,
// a file over Feishu's 100 MB limit and a sticker each give their reason.
import { afterEach, describe, expect, it } from 'vitest';
import { download, MB, refusal } from '../helpers/attachment-download.ts';
import type { Inbound } from '../../src/core/types.ts';
import { JPEG, PDF, PNG, VOICE, VOICE_SECONDS } from '../helpers/media-fixtures.ts';
import { waitFor } from '../helpers/harness.ts';
import { closeFeishu, startBare } from './helpers.ts';

afterEach(closeFeishu);

async function setup() {
  const inbound: Inbound[] = [];
  const { fs, adapter, log } = await startBare({ onMessage: async (message) => void inbound.push(message), onAction: async () => {} });
  const reported = (n: number) => waitFor(() => inbound[n - 1], `message ${n}`);
  return { fs, adapter, log, reported, alice: fs.user('Alice'), dm: fs.p2p() };
}

describe('feishu: downloading attachments', () => {
  it('an image, a PDF, a voice note and the image of a post come back byte for byte', async () => {
    const { fs, adapter, reported, alice, dm, log } = await setup();
    await fs.push(fs.mediaEvent(alice, dm, { image: { bytes: PNG.bytes, mimeType: 'image/png' } }).event);
    await fs.push(fs.mediaEvent(alice, dm, { file: { bytes: PDF.bytes, mimeType: 'application/pdf', name: 'report.pdf' } }).event);
    await fs.push(fs.mediaEvent(alice, dm, { audio: { bytes: VOICE.bytes, durationMs: VOICE_SECONDS * 1000 } }).event);
    await fs.push(
      fs.mediaEvent(alice, dm, {
        post: { text: 'what is this?', image: { bytes: JPEG.bytes, mimeType: 'image/jpeg', width: 320, height: 200 } },
      }).event,
    );

    const image = (await reported(1)).attachments[0]!;
    expect(image.kind).toBe('image');
    const png = await download(adapter, image);
    expect(png.bytes.equals(PNG.bytes)).toBe(true);
    expect(png).toMatchObject({ contentType: 'image/png', size: PNG.bytes.length });
    const pdf = (await reported(2)).attachments[0]!;
    expect(pdf).toMatchObject({ kind: 'file', name: 'report.pdf' });
    expect((await download(adapter, pdf)).bytes.equals(PDF.bytes)).toBe(true);
    const voice = (await reported(3)).attachments[0]!;
    expect(voice).toMatchObject({ kind: 'audio', voice: true, durationSeconds: VOICE_SECONDS });
    expect((await download(adapter, voice)).bytes.equals(VOICE.bytes)).toBe(true);
    const post = await reported(4);
    expect(post.text).toBe('what is this?');
    expect((await download(adapter, post.attachments[0]!)).bytes.equals(JPEG.bytes)).toBe(true);

    expect(fs.resources.requests.map((r) => [r.type, r.status])).toEqual([
      ['image', 200],
      ['file', 200],
      ['file', 200],
      ['image', 200],
    ]);
    expect(log.text()).not.toContain(fs.appSecret);
  });

  it('a withdrawn message → not-found; a file over 100 MB → too-large; a sticker → refused without a request', async () => {
    const { fs, adapter, reported, alice, dm } = await setup();
    const sent = fs.mediaEvent(alice, dm, { file: { bytes: PDF.bytes, mimeType: 'application/pdf', name: 'report.pdf' } });
    await fs.push(sent.event);
    await fs.push(fs.mediaEvent(alice, dm, { hugeFile: { name: 'backup.zip', size: 150 * MB } }).event);
    const withSticker = fs.messageEvent(alice, dm, '');
    withSticker.event.event.message.message_type = 'sticker';
    withSticker.event.event.message.content = JSON.stringify({ file_key: 'file_v3_sticker0001g' });
    await fs.push(withSticker.event);

    fs.resources.withdraw(sent.messageId);
    const gone = await refusal(download(adapter, (await reported(1)).attachments[0]!));
    expect(gone.reason).toBe('not-found');
    expect(gone.message).toBe('Feishu no longer has this file (code 230011 The message was withdrawn.)');

    const huge = await refusal(download(adapter, (await reported(2)).attachments[0]!, 200 * MB));
    expect(huge.reason).toBe('too-large');
    expect(huge.message).toMatch(/^Feishu does not hand out files over 100 MB/);

    const requestsBefore = fs.resources.requests.length;
    const sticker = await refusal(download(adapter, (await reported(3)).attachments[0]!));
    expect(sticker).toMatchObject({ reason: 'refused', message: 'Feishu does not hand out stickers' });
    expect(fs.resources.requests).toHaveLength(requestsBefore);
  });

  it('a resource key that is not in the message (234003) → not-found', async () => {
    const { fs, adapter, reported, alice, dm } = await setup();
    await fs.push(fs.mediaEvent(alice, dm, { image: { bytes: PNG.bytes, mimeType: 'image/png' } }).event);
    const { messageId, attachments } = await reported(1);
    const foreign = { ...attachments[0]!, ref: `${messageId}/image/img_v3_someoneelses0000g` };
    const error = await refusal(download(adapter, foreign));
    expect(error).toMatchObject({ reason: 'not-found', message: 'Feishu no longer has this file (code 234003 File not in msg.)' });
  });
});
