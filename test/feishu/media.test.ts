// Feishu media end to end: the real Lark SDK and adapter, the fake open platform serving real
// files as message resources, the real core and media intake, the fake model. In one p2p chat: an
// image message, and a post with an image and a line of text, reach the model as image parts; a
// voice note (message type audio) as its transcription; a PDF as its text; a withdrawn message and
// a file over Feishu's 100 MB limit each get a short line while the turn goes on.
import { afterEach, describe, expect, it } from 'vitest';
import { settled, waitFor } from '../helpers/harness.ts';
import { JPEG, PDF, PDF_PAGES, PNG, VOICE, VOICE_SECONDS } from '../helpers/media-fixtures.ts';
import { imagesOfLastUser, lastUser } from '../helpers/media-turns.ts';
import { closeFeishu, startFeishu, text } from './helpers.ts';

afterEach(closeFeishu);

describe('feishu: attachments end to end', () => {
  it('images, a post with an image, a voice note and a PDF reach the model; a withdrawn and a huge file get their line', async () => {
    const { fs, h } = await startFeishu('webhook', { coreEnv: { OPENAI_TRANSCRIBE_MODEL: 'whisper-1' } });
    h.model.setTranscriber((request) =>
      request.bytes.subarray(0, 4).toString() === 'OggS' ? 'Please book the room for Friday.' : 'garbled',
    );
    const alice = fs.user('Alice');
    const dm = fs.p2p();
    const texts = () => fs.botMessages(dm).map(text);
    const turn = async (answer: string, send: () => Promise<unknown>) => {
      h.model.enqueue({ text: answer });
      await send();
      await waitFor(() => texts().includes(answer) || undefined, `the answer "${answer}"`);
      await settled(h.store, `feishu:${dm.id}`);
      return h.model.requests.at(-1)!;
    };

    const image = await turn('A green screen.', () =>
      fs.push(fs.mediaEvent(alice, dm, { image: { bytes: PNG.bytes, mimeType: 'image/png' } }).event),
    );
    expect(await imagesOfLastUser(image)).toEqual(['image/jpeg 640x360']);

    const post = await turn('A red square.', () =>
      fs.push(
        fs.mediaEvent(alice, dm, {
          post: { text: 'what is this?', image: { bytes: JPEG.bytes, mimeType: 'image/jpeg', width: 3000, height: 2000 } },
        }).event,
      ),
    );
    expect(lastUser(post).parts?.map((p) => p.type)).toEqual(['text', 'image_url']);
    expect(lastUser(post).content).toContain('what is this?');
    expect(await imagesOfLastUser(post)).toEqual(['image/jpeg 2048x1365']);

    const voice = await turn('Booked.', () =>
      fs.push(fs.mediaEvent(alice, dm, { audio: { bytes: VOICE.bytes, durationMs: VOICE_SECONDS * 1000 } }).event),
    );
    expect(lastUser(voice).content).toMatch(/, voice message, 0:02\]: Please book the room for Friday\.$/);

    const pdf = await turn('Revenue grew.', () =>
      fs.push(fs.mediaEvent(alice, dm, { file: { bytes: PDF.bytes, mimeType: 'application/pdf', name: 'report.pdf' } }).event),
    );
    expect(lastUser(pdf).content).toContain(PDF_PAGES[0]);

    const withdrawn = fs.mediaEvent(alice, dm, { file: { bytes: PDF.bytes, mimeType: 'application/pdf', name: 'old.pdf' } });
    fs.resources.withdraw(withdrawn.messageId);
    await turn('Please send it again.', () => fs.push(withdrawn.event));
    expect(texts()).toContainEqual(expect.stringMatching(/^I could not download .*old\.pdf.*: the platform no longer has it\.$/));

    await turn('That one is too big for me.', () =>
      fs.push(fs.mediaEvent(alice, dm, { hugeFile: { name: 'backup.zip', size: 150 * 1024 * 1024 } }).event),
    );
    // Feishu refused it (234037, over its 100 MB); the core says so with its own limit.
    expect(fs.resources.requests.at(-1)).toMatchObject({ type: 'file', status: 400 });
    expect(texts()).toContain('I could not read "backup.zip": it is over the 20 MB limit.');
  });
});
