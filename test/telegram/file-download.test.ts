// fetchAttachment through the real adapter and grammY against the fake Bot API: the attachment a
// message reported is downloaded with getFile and the file server path, byte for byte; a file over
// Telegram's 20 MB getFile limit, a deleted file and a lost download each give their reason, and
// no error or log line holds the token (the download URL contains it).
import { afterEach, describe, expect, it } from 'vitest';
import { download, MB, refusal } from '../helpers/attachment-download.ts';
import { TelegramAdapter } from '../../adapters/telegram/adapter.ts';
import { loadTelegramConfig } from '../../adapters/telegram/config.ts';
import type { Attachment, Inbound, InboundSink } from '../../src/core/types.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { DOCX, JPEG, PDF, PNG, VOICE, VOICE_SECONDS } from '../helpers/media-fixtures.ts';
import { waitFor } from '../helpers/harness.ts';
import { RecordingLogger } from './helpers.ts';

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!();
});

async function setup() {
  const tg = await FakeTelegram.start();
  const log = new RecordingLogger();
  const config = loadTelegramConfig({ TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot });
  if (!config) throw new Error('telegram config expected');
  const adapter = new TelegramAdapter({ config, log });
  const received: Inbound[] = [];
  const sink: InboundSink = { onMessage: async (inbound) => void received.push(inbound), onAction: async () => {} };
  await adapter.start(sink);
  open.push(async () => {
    await adapter.stop();
    await tg.close();
  });
  /** The attachments the adapter reported for the next message. */
  const reported = async (count: number): Promise<Attachment[]> => {
    const inbound = await waitFor(() => received[count - 1], `message ${count}`);
    return inbound.attachments;
  };
  return { tg, log, adapter, reported };
}

describe('telegram: downloading attachments', () => {
  it('a photo (its largest size), a voice note, a PDF and a DOCX come back byte for byte', async () => {
    const { tg, adapter, reported, log } = await setup();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const sizes = await tg.files.photo(PNG);
    tg.sendMedia(alice, dm, { photo: sizes }, 'what is this?');
    tg.sendMedia(alice, dm, { voice: tg.files.voice(VOICE, VOICE_SECONDS) });
    tg.sendMedia(alice, dm, { document: tg.files.document(PDF) });
    tg.sendMedia(alice, dm, { document: tg.files.document(DOCX) });

    const [photo] = await reported(1);
    expect(photo).toMatchObject({ kind: 'image', ref: sizes[1]!.file_id, size: sizes[1]!.file_size });
    const image = await download(adapter, photo!);
    expect(image.bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(image.bytes.length).toBe(sizes[1]!.file_size);
    expect(image).toMatchObject({ contentType: 'image/jpeg', size: sizes[1]!.file_size });

    const [voice] = await reported(2);
    expect(voice).toMatchObject({ kind: 'audio', mimeType: 'audio/ogg', voice: true, durationSeconds: VOICE_SECONDS });
    expect((await download(adapter, voice!)).bytes.equals(VOICE.bytes)).toBe(true);

    const [pdf] = await reported(3);
    expect(pdf).toMatchObject({ kind: 'file', name: 'report.pdf', mimeType: 'application/pdf' });
    expect((await download(adapter, pdf!)).bytes.equals(PDF.bytes)).toBe(true);

    const [docx] = await reported(4);
    expect(docx).toMatchObject({ kind: 'file', name: 'notes.docx', mimeType: DOCX.mimeType });
    expect((await download(adapter, docx!)).bytes.equals(DOCX.bytes)).toBe(true);

    expect(tg.downloads).toEqual([
      expect.stringMatching(/^photos\/file_\d+\.jpg$/),
      expect.stringMatching(/^voice\/file_\d+\.oga$/),
      expect.stringMatching(/^documents\/file_\d+\.pdf$/),
      expect.stringMatching(/^documents\/file_\d+\.docx$/),
    ]);
    expect(log.text()).not.toContain(tg.token);
  });

  it('a file over 20 MB: getFile says "file is too big" → too-large; over the core cap it is refused before asking', async () => {
    const { tg, adapter, reported } = await setup();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.sendMedia(alice, dm, { document: tg.files.bigDocument('scan.pdf', 'application/pdf', 25 * MB) });
    const [big] = await reported(1);
    const tooBig = await refusal(download(adapter, big!, 50 * MB));
    expect(tooBig.reason).toBe('too-large');
    expect(tooBig.message).toBe('Telegram does not hand out files over 20 MB to bots');
    expect(tg.files.asked).toEqual([big!.ref]);

    const overCap = await refusal(download(adapter, big!, 10 * MB));
    expect(overCap).toMatchObject({ reason: 'too-large', message: 'the file is 25 MB, over the 10 MB limit' });
    expect(tg.files.asked).toHaveLength(1);
  });

  it('a deleted file (invalid file_id) and a download path that answers 404 → not-found, without the token anywhere', async () => {
    const { tg, adapter, reported, log } = await setup();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const gone = tg.files.document(PDF);
    const lost = tg.files.document({ ...JPEG, name: 'photo.jpg' });
    tg.sendMedia(alice, dm, { document: gone });
    tg.sendMedia(alice, dm, { document: lost });
    const [first] = await reported(1);
    const [second] = await reported(2);
    tg.files.forget(gone.file_id);
    tg.files.loseBytes(lost.file_id);

    const deleted = await refusal(download(adapter, first!));
    expect(deleted).toMatchObject({ reason: 'not-found', message: 'Telegram no longer has this file' });
    const missing = await refusal(download(adapter, second!));
    expect(missing.reason).toBe('not-found');
    expect(tg.downloads).toEqual([expect.stringMatching(/^lost\/documents\//)]);
    for (const error of [deleted, missing]) expect(`${error.message} ${String(error.cause)}`).not.toContain(tg.token);
    expect(log.text()).not.toContain(tg.token);
  });

  it('a file_path that would climb out of /file/bot<token>/ is not fetched', async () => {
    const { tg, adapter, reported } = await setup();
    const alice = tg.user('Alice');
    const doc = tg.files.document(PDF);
    tg.sendMedia(alice, tg.privateChat(alice), { document: doc });
    const [pdf] = await reported(1);
    tg.files.reportPath(doc.file_id, '../../getMe');
    const error = await refusal(download(adapter, pdf!));
    expect(error).toMatchObject({ reason: 'unavailable', message: 'Telegram gave no usable download path for the file' });
    expect(tg.downloads).toEqual([]);
  });

  it('Telegram out of reach: unavailable, and the message names no token', async () => {
    const { tg, adapter, reported } = await setup();
    const alice = tg.user('Alice');
    tg.sendMedia(alice, tg.privateChat(alice), { document: tg.files.document(PDF) });
    const [pdf] = await reported(1);
    const stopped = new AbortController();
    stopped.abort(new Error('turn stopped'));
    const aborted = await refusal(adapter.fetchAttachment(pdf!, { signal: stopped.signal, maxBytes: MB }));
    expect(aborted.reason).toBe('unavailable');
    expect(aborted.message).not.toContain(tg.token);
  });
});
