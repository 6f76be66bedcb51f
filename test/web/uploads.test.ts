// Files dropped or pasted into the web console, over real HTTP against the real adapter and core:
// the upload is streamed to the data folder under a cap enforced while it arrives, only the
// browser that sent it may attach it to a message, the transcript shows it (images come back only
// when their bytes are an image, labelled by those bytes), and fetchAttachment serves the exact bytes.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AttachmentFetchError } from '../../src/core/types.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { JPEG, PDF, PDF_PAGES, PNG, VOICE } from '../helpers/media-fixtures.ts';
import { imagesOfLastUser, lastUser } from '../helpers/media-turns.ts';
import { ConsoleClient } from './client.ts';
import { closeConsoles, startConsole } from './console.ts';

afterEach(closeConsoles);

interface UploadView {
  id: string;
  name: string;
  mimeType: string;
  size: number;
  kind: string;
}

function upload(
  client: ConsoleClient,
  bytes: Uint8Array | ReadableStream<Uint8Array>,
  name: string,
  type: string,
  headers: Record<string, string> = {},
) {
  return client.request('/api/uploads', {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'x-file-name': encodeURIComponent(name), 'x-file-type': type, ...headers },
    body: bytes,
    ...(bytes instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
}

function uploadedFiles(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, 'web-uploads'));
  } catch {
    return [];
  }
}

describe('web console: uploads', () => {
  it('an uploaded image and PDF go with a message: shown in the transcript, served to the core byte for byte', async () => {
    const web = await startConsole();
    web.harness.model.enqueue({ text: 'Got your files.' });
    const alice = new ConsoleClient(web.url);
    const png = await upload(alice, PNG.bytes, 'screen shot.png', 'image/png');
    expect(png.status).toBe(201);
    const image = (await png.json()) as UploadView;
    expect(image).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      name: 'screen shot.png',
      mimeType: 'image/png',
      size: PNG.bytes.length,
      kind: 'image',
    });
    const pdf = (await (await upload(alice, PDF.bytes, 'report.pdf', 'application/pdf')).json()) as UploadView;

    const sent = await alice.post('/api/messages', { name: 'Alice', text: 'what do these say?', attachments: [image.id, pdf.id] });
    expect(sent.status).toBe(202);
    const chat = await alice.json<{ entries: { author: { you: boolean }; attachments?: UploadView[] }[] }>('/api/chat');
    expect(chat.entries.find((e) => e.author.you)?.attachments).toEqual([image, pdf]);

    const served = await web.web.fetchAttachment({ kind: 'image', ref: `upload:${image.id}` });
    expect(Buffer.from(await new Response(served.body).arrayBuffer()).equals(PNG.bytes)).toBe(true);
    expect(served).toMatchObject({ contentType: 'image/png', size: PNG.bytes.length });
    const doc = await web.web.fetchAttachment({ kind: 'file', ref: `upload:${pdf.id}` });
    expect(Buffer.from(await new Response(doc.body).arrayBuffer()).equals(PDF.bytes)).toBe(true);
    await waitFor(() => web.harness.model.requests.length === 1 || undefined, 'the turn');

    // The picture is shown back to its chat, sandboxed; a PDF is not served to the page at all.
    const shown = await alice.get(`/api/uploads/${image.id}`);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-type')).toBe('image/png');
    expect(shown.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(shown.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await shown.arrayBuffer()).equals(PNG.bytes)).toBe(true);
    expect((await alice.get(`/api/uploads/${pdf.id}`)).status).toBe(415);
  });

  it('end to end: photos with and without text, a voice recording and a PDF reach the model; a lost file gets its line', async () => {
    const web = await startConsole({ env: { OPENAI_TRANSCRIBE_MODEL: 'whisper-1' } });
    web.harness.model.setTranscriber((request) =>
      request.bytes.subarray(0, 4).toString() === 'OggS' ? 'Please book the room for Friday.' : 'garbled',
    );
    const alice = new ConsoleClient(web.url);
    const key = `web:dm-${await alice.id()}`;
    const botTexts = async () =>
      (await alice.json<{ entries: { author?: { isBot: boolean }; text?: string }[] }>('/api/chat')).entries
        .filter((e) => e.author?.isBot)
        .map((e) => e.text ?? '');
    const turn = async (answer: string, text: string, files: { bytes: Buffer; name: string; type: string }[]) => {
      web.harness.model.enqueue({ text: answer });
      const ids: string[] = [];
      for (const file of files) ids.push(((await (await upload(alice, file.bytes, file.name, file.type)).json()) as UploadView).id);
      expect((await alice.post('/api/messages', { name: 'Alice', text, attachments: ids })).status).toBe(202);
      await waitFor(async () => (await botTexts()).includes(answer) || undefined, `the answer "${answer}"`);
      await settled(web.harness.store, key);
      return { request: web.harness.model.requests.at(-1)!, ids };
    };

    const captioned = await turn('A red square.', 'what is this?', [{ bytes: JPEG.bytes, name: 'photo.jpg', type: 'image/jpeg' }]);
    expect(lastUser(captioned.request).parts?.map((p) => p.type)).toEqual(['text', 'image_url']);
    expect(lastUser(captioned.request).content).toContain('what is this?');
    expect(await imagesOfLastUser(captioned.request)).toEqual(['image/jpeg 2048x1365']);
    const bare = await turn('A green screen.', '', [{ bytes: PNG.bytes, name: 'screen.png', type: 'image/png' }]);
    expect(await imagesOfLastUser(bare.request)).toEqual(['image/jpeg 640x360']);
    const voice = await turn('Booked.', '', [{ bytes: VOICE.bytes, name: 'voice.ogg', type: 'audio/ogg' }]);
    expect(lastUser(voice.request).content).toMatch(/^\[Alice, .*\]: Please book the room for Friday\.$/);
    const pdf = await turn('Revenue grew.', 'summarise', [{ bytes: PDF.bytes, name: 'report.pdf', type: 'application/pdf' }]);
    expect(lastUser(pdf.request).content).toContain(PDF_PAGES[0]);

    // The file went missing from the data folder between the upload and the turn.
    web.harness.model.enqueue({ text: 'Please attach it again.' });
    const lost = (await (await upload(alice, PDF.bytes, 'lost.pdf', 'application/pdf')).json()) as UploadView;
    rmSync(join(web.dataDir, 'web-uploads', lost.id));
    expect((await alice.post('/api/messages', { name: 'Alice', text: 'and this one', attachments: [lost.id] })).status).toBe(202);
    await waitFor(async () => (await botTexts()).includes('Please attach it again.') || undefined, 'the answer');
    expect(await botTexts()).toContain('I could not download "lost.pdf": the platform no longer has it.');
  });

  it('a message of files alone (no text) is taken', async () => {
    const web = await startConsole();
    web.harness.model.enqueue({ text: 'A picture, thanks.' });
    const alice = new ConsoleClient(web.url);
    const image = (await (await upload(alice, PNG.bytes, 'a.png', 'image/png')).json()) as UploadView;
    expect((await alice.post('/api/messages', { name: 'Alice', text: '', attachments: [image.id] })).status).toBe(202);
    expect((await alice.post('/api/messages', { name: 'Alice', text: '  ' })).status).toBe(400);
  });

  it('/reset deletes the files its sender brought into that chat, and only those', async () => {
    const web = await startConsole();
    web.harness.model.setFallback(() => ({ text: 'Seen.' }));
    const alice = new ConsoleClient(web.url);
    const kept = (await (await upload(alice, PNG.bytes, 'not sent yet.png', 'image/png')).json()) as UploadView;
    const sent = (await (await upload(alice, PNG.bytes, 'sent.png', 'image/png')).json()) as UploadView;
    expect((await alice.post('/api/messages', { name: 'Alice', text: 'look', attachments: [sent.id] })).status).toBe(202);
    await waitFor(() => web.harness.model.requests.length === 1 || undefined, 'the turn');
    expect(uploadedFiles(web.dataDir).filter((name) => name.startsWith(sent.id))).toHaveLength(2);

    expect((await alice.post('/api/messages', { name: 'Alice', text: '/reset' })).status).toBe(202);
    expect(uploadedFiles(web.dataDir).filter((name) => name.startsWith(sent.id))).toEqual([]);
    // Still waiting in the tray (no message carried it into the chat): kept.
    expect(uploadedFiles(web.dataDir).filter((name) => name.startsWith(kept.id))).toHaveLength(2);
  });

  it('over the cap: refused by Content-Length at once, and while streaming when none is given; nothing is kept', async () => {
    const web = await startConsole({ webEnv: { PARLEY_MEDIA_MAX_MB: '1' } });
    const alice = new ConsoleClient(web.url);
    const big = new Uint8Array(1_000_001);
    const declared = await upload(alice, big, 'big.bin', 'application/octet-stream');
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { error: string }).error).toBe('the file is larger than the 1 MB limit');

    // Chunked, no Content-Length: counted as it arrives.
    let sent = 0;
    const chunked = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 3 * 1024 * 1024) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const streamed = await upload(alice, chunked, 'big.bin', 'application/octet-stream');
    expect(streamed.status).toBe(413);
    expect(uploadedFiles(web.dataDir)).toEqual([]);
  });

  it('CSRF-safe and strict: form and text bodies are refused; another browser cannot use or see my upload', async () => {
    const web = await startConsole();
    const alice = new ConsoleClient(web.url);
    const mallory = new ConsoleClient(web.url);
    for (const type of ['multipart/form-data; boundary=x', 'text/plain', 'application/x-www-form-urlencoded']) {
      const response = await alice.request('/api/uploads', { method: 'POST', headers: { 'content-type': type }, body: 'x' });
      expect(response.status).toBe(415);
    }
    expect((await upload(alice, PNG.bytes, 'a.png', 'image/png"><script>')).status).toBe(400);
    expect((await upload(alice, new Uint8Array(), 'empty.png', 'image/png')).status).toBe(400);

    const image = (await (await upload(alice, PNG.bytes, '../../etc/passwd', 'image/png')).json()) as UploadView;
    expect(image.name).toBe('.._.._etc_passwd');
    const stolen = await mallory.post('/api/messages', { name: 'Mallory', text: 'look', attachments: [image.id] });
    expect(stolen.status).toBe(400);
    expect((await mallory.get(`/api/uploads/${image.id}`)).status).toBe(404);
    expect((await mallory.get('/api/uploads/not-an-id')).status).toBe(404);
  });

  it('fetchAttachment of an upload that is gone: not-found', async () => {
    const web = await startConsole();
    const error = await web.web.fetchAttachment({ kind: 'image', ref: `upload:${'0'.repeat(32)}` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AttachmentFetchError);
    expect((error as AttachmentFetchError).reason).toBe('not-found');
  });
});
