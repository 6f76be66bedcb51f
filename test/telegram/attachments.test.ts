// Telegram media end to end: real grammY and adapter, the fake Bot API serving real files through
// getFile and /file/bot<token>/<path>, the real core and media intake, the fake model. In one
// private chat: a photo with a caption and one without reach the model as image parts, a voice
// note as its transcription, a PDF as its text; a file over Telegram's 20 MB getFile limit and a
// deleted one each get a short line in the chat while the turn goes on with the caption.
import { afterEach, describe, expect, it } from 'vitest';
import { settled, waitFor } from '../helpers/harness.ts';
import { JPEG, PDF, PDF_PAGES, PNG, VOICE, VOICE_SECONDS } from '../helpers/media-fixtures.ts';
import { imagesOfLastUser, lastUser } from '../helpers/media-turns.ts';
import { closeTelegram, sessionKey, startTelegram } from './helpers.ts';

afterEach(closeTelegram);

describe('telegram: attachments end to end', () => {
  it('photos, a voice note and a PDF reach the model; a too-big and a deleted file get their line and are answered', async () => {
    const { tg, h } = await startTelegram({ coreEnv: { OPENAI_TRANSCRIBE_MODEL: 'whisper-1' } });
    h.model.setTranscriber((request) =>
      request.bytes.subarray(0, 4).toString() === 'OggS' ? 'Please book the room for Friday.' : 'garbled',
    );
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const texts = () => tg.botMessages(dm).map((m) => m.message.text ?? '');
    const turn = async (answer: string, send: () => unknown) => {
      h.model.enqueue({ text: answer });
      await send();
      await waitFor(() => texts().includes(answer) || undefined, `the answer "${answer}"`);
      await settled(h.store, sessionKey(dm));
      return h.model.requests.at(-1)!;
    };

    const captioned = await turn('A red square.', async () =>
      tg.sendMedia(alice, dm, { photo: await tg.files.photo(JPEG) }, 'what is this?'),
    );
    expect(lastUser(captioned).parts?.map((p) => p.type)).toEqual(['text', 'image_url']);
    expect(lastUser(captioned).content).toContain('what is this?');
    // Telegram's largest size (2560×1707, as Telegram stores a 3000×2000 photo), downscaled to 2048 px.
    expect(await imagesOfLastUser(captioned)).toEqual(['image/jpeg 2048x1366']);

    const bare = await turn('A green screen.', async () => tg.sendMedia(alice, dm, { photo: await tg.files.photo(PNG) }));
    expect(await imagesOfLastUser(bare)).toEqual(['image/jpeg 640x360']);

    const voice = await turn('Booked.', () => tg.sendMedia(alice, dm, { voice: tg.files.voice(VOICE, VOICE_SECONDS) }));
    expect(lastUser(voice).content).toBe('[Alice, voice message, 0:02]: Please book the room for Friday.');
    expect(h.model.transcriptionRequests).toHaveLength(1);

    const pdf = await turn('Revenue grew.', () =>
      tg.sendMedia(alice, dm, { document: tg.files.document({ ...PDF, name: 'report.pdf' }) }, 'summarise'),
    );
    expect(lastUser(pdf).content).toContain('summarise');
    expect(lastUser(pdf).content).toContain(PDF_PAGES[0]);

    const big = tg.files.bigDocument('scan.pdf', 'application/pdf', 25 * 1024 * 1024);
    const tooBig = await turn('Tell me what it says, then.', () => tg.sendMedia(alice, dm, { document: big }, 'and this scan?'));
    expect(texts()).toContainEqual(expect.stringMatching(/^I could not read .*scan\.pdf.*: it is over the 20 MB limit\.$/));
    expect(lastUser(tooBig).content).toContain('and this scan?');

    const gone = tg.files.document({ ...PDF, name: 'old.pdf' });
    tg.files.forget(gone.file_id);
    const deleted = await turn('Please send it again.', () => tg.sendMedia(alice, dm, { document: gone }, 'the old one'));
    expect(texts()).toContainEqual(expect.stringMatching(/^I could not download .*old\.pdf.*: the platform no longer has it\.$/));
    expect(lastUser(deleted).content).toContain('the old one');
    expect(texts().join('\n')).not.toContain(tg.token);
  });
});
