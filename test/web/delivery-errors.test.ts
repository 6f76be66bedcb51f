// The web console maps its failures to the core's delivery errors: a message that is no longer in
// the (bounded, per-process) transcript is 'gone', so the renderer sends the answer anew instead
// of failing it; text over the limit is 'too_large'.
import { afterEach, describe, expect, it } from 'vitest';
import { WebAdapter } from '../../adapters/web/adapter.ts';
import { webConfigFromEnv } from '../../adapters/web/index.ts';
import { Transcript } from '../../adapters/web/transcript.ts';
import { DeliveryError } from '../../src/core/delivery.ts';
import { HttpHost } from '../../src/http/host.ts';
import { silentLogger } from '../../src/log.ts';
import { closeAll, createHarness, settled, tempDir, waitFor } from '../helpers/harness.ts';

const hosts: HttpHost[] = [];
afterEach(async () => {
  while (hosts.length) await hosts.pop()!.close();
  await closeAll();
});

async function startWeb(transcript: Transcript) {
  const web = new WebAdapter({
    config: webConfigFromEnv({})!,
    botName: 'Parley',
    log: silentLogger,
    dataDir: tempDir('parley-web-'),
    transcript,
  });
  const host = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    log: silentLogger,
    readiness: { pingDatabase: async () => {}, channels: ['web'], phase: () => 'started' },
  });
  hosts.push(host);
  web.routes(host);
  await host.listen();
  return web;
}

const ANSWER =
  'Once upon a time a bot kept answering even after its message had scrolled out of the console, and everyone read the whole story.';
const ROOM = { chatId: 'room-ops', chatType: 'group' as const };
const ALICE = { id: 'u-alice', name: 'Alice' };

describe('web console: delivery errors', () => {
  it("throws 'gone' for a message it no longer has and 'too_large' past its limit", async () => {
    const web = await startWeb(new Transcript());
    const h = await createHarness({ adapters: [web], noModel: true });
    const ref = await web.send({ channel: 'web', ...ROOM }, { text: 'hello' });
    const restarted = await startWeb(new Transcript());
    const gone = await restarted.edit(ref, { text: 'edited' }).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(DeliveryError);
    expect((gone as DeliveryError).kind).toBe('gone');
    const tooLarge = await web
      .send({ channel: 'web', ...ROOM }, { text: 'x'.repeat(web.capabilities.maxTextLength + 1) })
      .catch((error: unknown) => error);
    expect((tooLarge as DeliveryError).kind).toBe('too_large');
    await h.stop();
  });

  it('an answer whose message was pushed out of the transcript while it streamed is sent anew, complete', async () => {
    const web = await startWeb(new Transcript({ entriesPerChat: 3, chats: 10 }));
    const h = await createHarness({ adapters: [web] });
    h.model.enqueue({ text: ANSWER, chunkSize: 8, delayMs: 60 });
    await web.post(ROOM, ALICE, '@Parley tell me a story');
    const botTexts = async () =>
      (await web.history(ROOM, ALICE.id)).flatMap((e) => (e.kind === 'message' && e.author.isBot ? [e.text] : []));
    await waitFor(async () => (await botTexts()).some((text) => text.startsWith('Once')), 'the answer to start streaming');
    // Chatter not addressed to the bot pushes the streaming message out of the bounded transcript.
    for (const text of ['one', 'two', 'three']) await web.post(ROOM, ALICE, text);
    expect(await botTexts()).toEqual([]);

    await settled(h.store, 'web:room-ops');
    await waitFor(async () => (await botTexts()).includes(ANSWER), 'the complete answer, sent anew');
    expect((await botTexts()).some((text) => /could not deliver/i.test(text))).toBe(false);
  });
});
