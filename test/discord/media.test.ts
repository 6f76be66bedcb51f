// Discord media end to end: real discord.js and adapter, the fake Discord serving real files from
// its signed, expiring CDN, the real core and media intake, the fake model. In one DM: a photo with
// a caption and one without reach the model as image parts, a voice message (flags 8192) as its
// transcription, a PDF as its text; an expired link is renewed and still read; a file over the
// cap, a deleted one and a link Discord does not renew each get a short line while the turn goes on
// with the text.
import { afterEach, describe, expect, it } from 'vitest';
import { settled, waitFor } from '../helpers/harness.ts';
import { JPEG, PDF, PDF_PAGES, PNG, VOICE, VOICE_SECONDS } from '../helpers/media-fixtures.ts';
import { imagesOfLastUser, lastUser } from '../helpers/media-turns.ts';
import { closeDiscord, sessionKey, startDiscord } from './helpers.ts';

afterEach(closeDiscord);

describe('discord: attachments end to end', () => {
  it('photos, a voice message, a PDF and an expired link reach the model; a too-big and a deleted file get their line', async () => {
    const { dc, h } = await startDiscord({ coreEnv: { OPENAI_TRANSCRIBE_MODEL: 'whisper-1' } });
    h.model.setTranscriber((request) =>
      request.bytes.subarray(0, 4).toString() === 'OggS' ? 'Please book the room for Friday.' : 'garbled',
    );
    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const texts = () => dc.botMessages(dm).map((m) => m.message.content);
    const turn = async (answer: string, send: () => unknown) => {
      h.model.enqueue({ text: answer });
      send();
      await waitFor(() => texts().includes(answer) || undefined, `the answer "${answer}"`);
      await settled(h.store, sessionKey(dm));
      return h.model.requests.at(-1)!;
    };
    const file = (filename: string, contentType: string, bytes: Buffer) => ({ filename, contentType, bytes });

    const captioned = await turn('A green screen.', () =>
      dc.say(alice, dm, 'what is this?', { files: [{ ...file('screen.png', 'image/png', PNG.bytes), width: 640, height: 360 }] }),
    );
    expect(lastUser(captioned).parts?.map((p) => p.type)).toEqual(['text', 'image_url']);
    expect(lastUser(captioned).content).toContain('what is this?');
    expect(await imagesOfLastUser(captioned)).toEqual(['image/jpeg 640x360']);

    const bare = await turn('A red square.', () => dc.say(alice, dm, '', { files: [file('photo.jpg', 'image/jpeg', JPEG.bytes)] }));
    expect(await imagesOfLastUser(bare)).toEqual(['image/jpeg 2048x1365']);

    const voice = await turn('Booked.', () => dc.say(alice, dm, '', { voice: { bytes: VOICE.bytes, durationSecs: VOICE_SECONDS } }));
    expect(lastUser(voice).content).toBe('[Alice, voice message, 0:02]: Please book the room for Friday.');

    const pdf = await turn('Revenue grew.', () =>
      dc.say(alice, dm, 'summarise', { files: [file('report.pdf', 'application/pdf', PDF.bytes)] }),
    );
    expect(lastUser(pdf).content).toContain(PDF_PAGES[0]);

    // A day later the message's link has expired: the adapter renews it (POST /attachments/refresh-urls).
    const message = dc.compose(alice, dm, 'still there?', { files: [file('later.png', 'image/png', PNG.bytes)] });
    dc.cdn.expireAll();
    const expired = await turn('Yes, still green.', () => dc.gateway.dispatch('MESSAGE_CREATE', message.event));
    expect(await imagesOfLastUser(expired)).toEqual(['image/jpeg 640x360']);
    expect(dc.calls.filter((c) => c.path === '/attachments/refresh-urls')).toHaveLength(1);

    const tooBig = await turn('Tell me what it says, then.', () =>
      dc.say(alice, dm, 'and this scan?', { files: [{ filename: 'scan.pdf', contentType: 'application/pdf', size: 30 * 1024 * 1024 }] }),
    );
    expect(texts()).toContainEqual(expect.stringMatching(/^I could not read .*scan\.pdf.*: it is over the 20 MB limit\.$/));
    expect(lastUser(tooBig).content).toContain('and this scan?');

    const doomed = dc.compose(alice, dm, 'the old one', { files: [file('old.pdf', 'application/pdf', PDF.bytes)] });
    dc.cdn.delete(doomed.message.attachments[0]!.id);
    const deleted = await turn('Please send it again.', () => dc.gateway.dispatch('MESSAGE_CREATE', doomed.event));
    expect(texts()).toContainEqual(expect.stringMatching(/^I could not download .*old\.pdf.*: the platform no longer has it\.$/));
    expect(lastUser(deleted).content).toContain('the old one');

    // An expired link Discord does not renew: the chat is asked to send the file again.
    const stale = dc.compose(alice, dm, 'from last week', { files: [file('week.png', 'image/png', PNG.bytes)] });
    dc.cdn.expireAll();
    dc.cdn.renewsNothing = true;
    const expiredForGood = await turn('I cannot see it; please send it again.', () => dc.gateway.dispatch('MESSAGE_CREATE', stale.event));
    expect(texts()).toContainEqual(
      expect.stringMatching(/^I could not download .*week\.png.*: its link has expired\. Please send it again\.$/),
    );
    expect(lastUser(expiredForGood).content).toContain('from last week');
  });
});
