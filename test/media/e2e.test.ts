// The media pipeline end to end, through the gateway as every channel uses it: the in-memory
// channel serves real files through fetchAttachment, the fake OpenAI-compatible model records the
// content parts it is sent and answers from them, and transcription goes through its
// /audio/transcriptions endpoint. Per-platform downloads are tested in each adapter's suite.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { Attachment } from '../../src/core/types.ts';
import { imagesOf, type RecordedRequest } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';

afterEach(closeAll);

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'media');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const KEY = 'memory:dm-u-alice';

/** The fake model answers from what it was sent: how many images, their size, and the last user text. */
async function answerFromParts(request: RecordedRequest): Promise<string> {
  const images = imagesOf(request);
  const sizes = await Promise.all(
    images.map(async (image) => {
      const meta = await sharp(image.bytes).metadata();
      return `${image.mime} ${meta.width}x${meta.height}`;
    }),
  );
  const last = request.body.messages.findLast((m) => m.role === 'user')?.content ?? '';
  return `images: ${images.length}${sizes.length ? ` (${sizes.join(', ')})` : ''}; text: ${last}`;
}

async function mediaHarness(env: Record<string, string> = {}) {
  const h = await createHarness({ env });
  const answers: Promise<string>[] = [];
  h.model.setFallback((request) => {
    // The step is given at once; its text is worked out from the parts before the test reads it.
    const answer = answerFromParts(request);
    answers.push(answer);
    return { text: 'answered' };
  });
  return { h, answers };
}

const photo: Attachment = { kind: 'image', ref: 'photo-1', name: 'photo.jpg', mimeType: 'image/jpeg', size: 38_497 };

describe('media end to end (in-memory channel, fake model)', () => {
  it('a photo with a caption reaches the model as an image part beside the caption, downscaled', async () => {
    const { h, answers } = await mediaHarness();
    h.adapter.serveFile('photo-1', { bytes: fixture('photo.jpg'), contentType: 'image/jpeg' });
    await h.adapter.say('what colour is the square?', { attachments: [photo] });
    await settled(h.store, KEY);
    expect(h.model.requests).toHaveLength(1);
    const user = h.model.requests[0]!.body.messages.findLast((m) => m.role === 'user')!;
    expect(user.parts?.map((p) => p.type)).toEqual(['text', 'image_url']);
    expect(user.content).toContain('what colour is the square?');
    expect(await answers[0]).toBe(`images: 1 (image/jpeg 2048x1365); text: ${user.content}`);
    // History keeps a reference to the cached file, never the image itself.
    const session = (await h.store.sessions.getByKey(KEY))!;
    const stored = (await h.store.messages.history(session.id, 0)).find((m) => m.role === 'user')!;
    expect(stored.content).toMatch(/⟦image:[0-9a-f]{64}\.jpg⟧/);
    expect(stored.content.length).toBeLessThan(300);
    expect(h.adapter.lastBotMessage()!.text).toBe('answered');
  });

  it('a photo without a caption is answered by a turn (not "I cannot read images"), the image sent', async () => {
    const { h, answers } = await mediaHarness();
    h.adapter.serveFile('photo-1', { bytes: fixture('photo.jpg') });
    await h.adapter.say('', { attachments: [photo] });
    await settled(h.store, KEY);
    expect(await answers[0]).toMatch(/^images: 1 \(image\/jpeg 2048x1365\)/);
    expect(h.adapter.lastBotMessage()!.text).toBe('answered');
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
