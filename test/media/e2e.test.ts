// The media pipeline end to end, through the gateway as every channel uses it: the in-memory
// channel serves real files through fetchAttachment, the fake OpenAI-compatible model records the
// content parts it is sent and answers from them, and transcription goes through its
// /audio/transcriptions endpoint. Per-platform downloads are tested in each adapter's suite.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Attachment, AttachmentFetchError } from '../../src/core/types.ts';
import { textPdf } from '../helpers/media-files.ts';
import type { ServedFile } from '../fakes/memory-adapter.ts';
import { describeImages, imagesOf } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled, tempDir, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'media');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const KEY = 'memory:dm-u-alice';

/** The fake model answers from what it was sent: the images it got (from their headers) and the last user text. */
async function mediaHarness(env: Record<string, string> = {}) {
  const h = await createHarness({ env });
  h.model.setFallback((request) => {
    const last = request.body.messages.findLast((m) => m.role === 'user')?.content ?? '';
    return { text: `I got ${describeImages(request)}; the text: ${last.split('\n')[0]}` };
  });
  return { h };
}

const photo: Attachment = { kind: 'image', ref: 'photo-1', name: 'photo.jpg', mimeType: 'image/jpeg', size: 38_497 };

describe('media end to end (in-memory channel, fake model)', () => {
  it('a photo with a caption reaches the model as an image part beside the caption, downscaled', async () => {
    const { h } = await mediaHarness();
    h.adapter.serveFile('photo-1', { bytes: fixture('photo.jpg'), contentType: 'image/jpeg' });
    await h.adapter.say('what colour is the square?', { attachments: [photo] });
    await settled(h.store, KEY);
    expect(h.model.requests).toHaveLength(1);
    const user = h.model.requests[0]!.body.messages.findLast((m) => m.role === 'user')!;
    expect(user.parts?.map((p) => p.type)).toEqual(['text', 'image_url']);
    expect(user.content).toContain('what colour is the square?');
    expect(h.adapter.lastBotMessage()!.text).toBe('I got 1 image: image/jpeg 2048×1365; the text: what colour is the square?');
    // History keeps a reference to the cached file, never the image itself.
    const session = (await h.store.sessions.getByKey(KEY))!;
    const stored = (await h.store.messages.history(session.id, 0)).find((m) => m.role === 'user')!;
    expect(stored.content).toMatch(/⟦image:[0-9a-f]{64}\.jpg⟧/);
    expect(stored.content.length).toBeLessThan(300);
  });

  it('a photo without a caption is answered by a turn (not "I cannot read images"), the image sent', async () => {
    const { h } = await mediaHarness();
    h.adapter.serveFile('photo-1', { bytes: fixture('photo.jpg') });
    await h.adapter.say('', { attachments: [photo] });
    await settled(h.store, KEY);
    expect(h.adapter.lastBotMessage()!.text).toBe(
      'I got 1 image: image/jpeg 2048×1365; the text: [Alice sent an image ("photo.jpg", image/jpeg, 38 KB)]',
    );
  });

  it('a voice note reaches the model as its transcription', async () => {
    const { h } = await mediaHarness({ OPENAI_TRANSCRIBE_MODEL: 'whisper-1' });
    h.model.setTranscriber((request) =>
      request.bytes.subarray(0, 4).toString() === 'OggS' ? 'Can you book the room for Friday?' : 'garbled',
    );
    h.adapter.serveFile('voice-1', { bytes: fixture('voice.ogg') });
    await h.adapter.say('', { attachments: [{ kind: 'audio', ref: 'voice-1', voice: true, durationSeconds: 42, mimeType: 'audio/ogg' }] });
    await settled(h.store, KEY);
    expect(h.model.transcriptionRequests).toHaveLength(1);
    expect(h.model.transcriptionRequests[0]).toMatchObject({
      model: 'whisper-1',
      filename: 'audio.ogg',
      mime: 'audio/ogg',
      authorization: 'Bearer test-key',
    });
    const user = h.model.requests[0]!.body.messages.findLast((m) => m.role === 'user')!;
    expect(user.content).toBe('[Alice, voice message, 0:42]: Can you book the room for Friday?');
    expect(user.parts).toBeUndefined();
  });

  it('a PDF reaches the model as its text', async () => {
    const { h } = await mediaHarness();
    h.adapter.serveFile('pdf-1', { bytes: fixture('report.pdf') });
    await h.adapter.say('summarise this', {
      attachments: [{ kind: 'file', ref: 'pdf-1', name: 'report.pdf', mimeType: 'application/pdf' }],
    });
    await settled(h.store, KEY);
    const user = h.model.requests[0]!.body.messages.findLast((m) => m.role === 'user')!;
    expect(user.content).toContain('summarise this');
    expect(user.content).toContain('Quarterly report: revenue grew 12 percent.');
    expect(user.content).toContain('Page three: hiring two engineers.');
  });
});

describe('a model that refuses images (OPENAI_VISION=auto)', () => {
  it.each(['openai', 'deepseek', 'ollama'] as const)(
    '%s: the turn is answered from the text once, later turns send no images, a restart remembers',
    async (style) => {
      const { h } = await mediaHarness();
      h.model.refuseImages(style);
      h.adapter.serveFile('photo-1', { bytes: fixture('photo.jpg') });
      h.adapter.serveFile('photo-2', { bytes: fixture('screenshot.png') });
      await h.adapter.say('what is this?', { attachments: [photo] });
      await settled(h.store, KEY);
      // Refused with the image, then asked again with its note.
      expect(h.model.requests.map((r) => r.answer?.status)).toEqual([400, 200]);
      expect(imagesOf(h.model.requests[0]!)).toHaveLength(1);
      expect(imagesOf(h.model.requests[1]!)).toHaveLength(0);
      const retried = h.model.requests[1]!.body.messages.findLast((m) => m.role === 'user')!.content!;
      expect(retried).toContain('what is this?');
      expect(retried).toContain('(not shown: this model cannot see images)');
      const texts = h.adapter.botMessages().map((m) => m.text);
      expect(texts.join('\n')).toContain('This model does not take images');
      expect(texts.join('\n')).toContain('I got no images; the text: what is this?');

      // The next photo is not even downloaded; the turn goes on with the caption and a note.
      await h.adapter.say('and this one?', { attachments: [{ kind: 'image', ref: 'photo-2', name: 'screenshot.png' }] });
      await settled(h.store, KEY);
      expect(h.model.requests).toHaveLength(3);
      expect(imagesOf(h.model.requests[2]!)).toHaveLength(0);
      expect(h.model.requests[2]!.answer?.status).toBe(200);
      expect(h.adapter.fetches.map((f) => f.ref)).toEqual(['photo-1']);
      const notices = h.adapter.botMessages().filter((m) => m.text.includes('does not take images'));
      expect(notices).toHaveLength(1);

      // A restart on the same data folder keeps knowing it.
      await h.stop();
      const again = await createHarness({ dbFile: h.dbFile, model: h.model });
      again.adapter.serveFile('photo-1', { bytes: fixture('photo.jpg') });
      await again.adapter.say('', { attachments: [photo] });
      // Nothing readable: answered without a model turn.
      await waitForText(again, 'I cannot read images yet');
      expect(h.model.requests).toHaveLength(3);
    },
  );
});

async function waitForText(h: Awaited<ReturnType<typeof createHarness>>, text: string) {
  const deadline = Date.now() + 10_000;
  while (!h.adapter.botMessages().some((m) => m.text.includes(text))) {
    if (Date.now() > deadline)
      throw new Error(`no bot message with "${text}": ${JSON.stringify(h.adapter.botMessages().map((m) => m.text))}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

describe('bad input: a short line in the chat, and the turn goes on with the text', () => {
  it.each([
    {
      what: 'a file over the cap',
      env: { PARLEY_MEDIA_MAX_MB: '0.01' },
      attachment: { kind: 'image', ref: 'big', name: 'photo.jpg' } as Attachment,
      serve: { bytes: fixture('photo.jpg') },
      line: 'I could not read "photo.jpg": it is over the 10 KB limit.',
    },
    {
      what: 'a download that stalls',
      env: { PARLEY_MEDIA_TIMEOUT: '300ms' },
      attachment: { kind: 'file', ref: 'slow', name: 'notes.txt' } as Attachment,
      serve: { stallAfter: Buffer.from('Shopping') },
      line: 'I could not read "notes.txt": the download took too long.',
    },
    {
      what: 'an HTML page named .png',
      attachment: { kind: 'image', ref: 'html', name: 'chart.png', mimeType: 'image/png' } as Attachment,
      serve: { bytes: fixture('html-named.png'), contentType: 'image/png' },
      line: '"chart.png" is not an image (it is a web page).',
    },
    {
      what: 'a decompression bomb (20,000 × 20,000 PNG)',
      attachment: { kind: 'image', ref: 'bomb', name: 'bomb.png' } as Attachment,
      serve: { bytes: fixture('bomb.png') },
      line: '"bomb.png" is too large to look at (20000×20000 pixels).',
    },
    {
      what: 'a corrupt PDF',
      attachment: { kind: 'file', ref: 'bad-pdf', name: 'broken.pdf' } as Attachment,
      serve: { bytes: fixture('corrupt.pdf') },
      line: '"broken.pdf" looks damaged: I could not read it as a PDF.',
    },
    {
      what: 'a file the platform no longer has (404)',
      attachment: { kind: 'file', ref: 'gone', name: 'notes.txt' } as Attachment,
      serve: undefined,
      line: 'I could not download "notes.txt": the platform no longer has it.',
    },
    {
      what: 'an expired link',
      attachment: { kind: 'image', ref: 'expired', name: 'photo.jpg' } as Attachment,
      serve: { error: new AttachmentFetchError('expired', 'the signed CDN URL expired') },
      line: 'I could not download "photo.jpg": its link has expired. Please send it again.',
    },
    {
      what: 'a 10,000-page PDF (its first pages within the budget)',
      env: { PARLEY_MEDIA_DOCUMENT_TOKENS: '200' },
      attachment: { kind: 'file', ref: 'long', name: 'long.pdf' } as Attachment,
      serve: { bytes: textPdf(Array.from({ length: 10_000 }, (_, i) => `Page ${i + 1} of the long one.`)) },
      line: undefined,
      model: /\[page 1\]\nPage 1 of the long one\.[\s\S]*… 9,9\d\d more pages not shown/,
    },
  ] as { what: string; env?: Record<string, string>; attachment: Attachment; serve?: ServedFile; line?: string; model?: RegExp }[])(
    '$what',
    async ({ env, attachment, serve, line, model }) => {
      const { h } = await mediaHarness(env);
      if (serve) h.adapter.serveFile(attachment.ref, serve);
      await h.adapter.say('please look', { attachments: [attachment] });
      await settled(h.store, KEY);
      const texts = h.adapter.botMessages().map((m) => m.text);
      expect(texts.at(-1)).toBe('I got no images; the text: please look');
      const user = h.model.requests[0]!.body.messages.findLast((m) => m.role === 'user')!;
      expect(user.content).toContain('please look');
      expect(user.parts).toBeUndefined();
      if (line) {
        expect(texts).toContain(line);
        expect(user.content).toContain(`it could not be read: ${line}`);
      } else expect(texts).toEqual(['I got no images; the text: please look']);
      if (model) expect(user.content).toMatch(model);
    },
  );
});

describe('the cache and /reset', () => {
  it("/reset deletes the session's cached images; the model then gets no image from before", async () => {
    const { h } = await mediaHarness();
    h.adapter.serveFile('photo-1', { bytes: fixture('photo.jpg') });
    await h.adapter.say('look', { attachments: [photo] });
    await settled(h.store, KEY);
    const session = (await h.store.sessions.getByKey(KEY))!;
    const folder = join(h.app.media.cache.dir, session.id);
    expect(readdirSync(folder).filter((f) => f.endsWith('.jpg'))).toHaveLength(1);
    await h.adapter.say('/reset');
    await waitForText(h, 'Started a fresh conversation');
    expect(existsSync(folder)).toBe(false);
    await h.adapter.say('and now?');
    await settled(h.store, KEY);
    expect(imagesOf(h.model.requests.at(-1)!)).toEqual([]);
  });

  it('the cache is beside the database, in its media folder', async () => {
    const { h } = await mediaHarness();
    expect(h.app.media.cache.dir).toBe(join(dirname(h.dbFile), 'media'));
  });
});

describe('attachments sent while a turn runs (steering)', () => {
  it('a photo sent mid-turn is read and reaches the model in the same turn, after the tool step', async () => {
    const { h } = await mediaHarness();
    h.adapter.serveFile('photo-1', { bytes: fixture('photo.jpg') });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // First round: a tool call whose answer is held until the photo is in the mailbox.
    h.model.enqueue({ text: 'Let me think', hold: held, toolCalls: [{ name: 'recall', arguments: {} }] });
    await h.adapter.say('wait for my photo');
    await waitFor(() => h.model.requests.length === 1, 'the first request');
    await h.adapter.say('here it is', { attachments: [photo] });
    release();
    const turns = await settled(h.store, KEY);
    expect(turns).toHaveLength(1);
    const images = h.model.requests.map((r) => imagesOf(r).length);
    expect(images.at(-1)).toBe(1);
    expect(h.model.requests.at(-1)!.body.messages.some((m) => m.content?.includes('here it is'))).toBe(true);
  });
});

const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;

describe.skipIf(!adminUrl)('on PostgreSQL', () => {
  it('a photo and a PDF reach the model through the mailbox the same way', async () => {
    const database = `parley_media_${Math.random().toString(16).slice(2, 10)}`;
    const pg = await import('pg');
    const admin = new pg.default.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(adminUrl!);
    url.pathname = `/${database}`;
    const dataDir = tempDir('parley-media-pg-');
    try {
      const h = await createHarness({ databaseUrl: url.toString(), dataDir });
      h.model.setFallback(() => ({ text: 'answered' }));
      h.adapter.serveFile('photo-1', { bytes: fixture('photo.jpg') }).serveFile('pdf-1', { bytes: fixture('report.pdf') });
      await h.adapter.say('both', { attachments: [photo, { kind: 'file', ref: 'pdf-1', name: 'report.pdf' }] });
      await settled(h.store, KEY);
      const user = h.model.requests[0]!.body.messages.findLast((m) => m.role === 'user')!;
      expect(imagesOf(h.model.requests[0]!)).toHaveLength(1);
      expect(user.content).toContain('Page two: the new office opens in March.');
      expect(readdirSync(join(dataDir, 'media'))).toHaveLength(1);
      await h.close();
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
