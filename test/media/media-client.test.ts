// The model client's side of images: markers in stored user messages become image parts (the
// newest N within a byte budget), others their note; the same message shown the same way is the
// same object (the request body keeps each message's JSON by object); a refusal falls back once.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { imageMarker } from '../../src/core/attachments.ts';
import { createLlmClient } from '../../src/llm/client.ts';
import type { ChatMessage } from '../../src/llm/types.ts';
import { silentLogger } from '../../src/log.ts';
import { MediaCache } from '../../src/media/cache.ts';
import { mediaClient } from '../../src/media/media-client.ts';
import { VisionState } from '../../src/media/vision.ts';
import { FakeModelServer, imagesOf } from '../fakes/model-server.ts';
import { tempDir } from '../helpers/harness.ts';

const dir = tempDir('parley-media-client-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let model: FakeModelServer | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function setup(vision: 'auto' | 'on' | 'off', imagesInContext = 2, imageBytesBudget?: number) {
  model = await FakeModelServer.start();
  model.setFallback(() => ({ text: 'ok' }));
  const cache = new MediaCache(join(dir, `cache-${Math.random()}`));
  const inner = createLlmClient({ baseUrl: model.url, model: 'm', timeoutMs: 5_000, maxRetries: 0 });
  const state = new VisionState(vision, { model: 'm', baseUrl: model.url }, join(dir, `vision-${Math.random()}.json`));
  const client = mediaClient(inner, {
    cache,
    vision: state,
    imagesInContext,
    ...(imageBytesBudget ? { imageBytesBudget } : {}),
    log: silentLogger,
  });
  const files = await Promise.all(['one', 'two', 'three'].map((n) => cache.put('s1', Buffer.from(`image ${n}`), 'jpg')));
  const messages: ChatMessage[] = [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: `first\n[Alice sent an image ${imageMarker(files[0]!)}]` },
    { role: 'assistant', content: 'a cat' },
    {
      role: 'user',
      content: `[Alice sent an image ${imageMarker(files[1]!)}]\n[Alice sent an image ${imageMarker(files[2]!)}]\nand these?`,
    },
  ];
  return { model, client, messages, state };
}

describe('images in requests', () => {
  it('sends the newest images as image_url parts after their line, older ones as a note', async () => {
    const { model, client, messages } = await setup('auto', 2);
    await client.complete({ messages }, { sessionId: 's1' });
    const request = model.requests[0]!;
    expect(imagesOf(request).map((i) => i.bytes.toString())).toEqual(['image two', 'image three']);
    const [, first, , last] = request.body.messages;
    expect(first!.parts).toBeUndefined();
    expect(first!.content).toBe('first\n[Alice sent an image (shown earlier, not any more)]');
    expect(last!.parts!.map((p) => (p.type === 'text' ? p.text : 'IMAGE'))).toEqual([
      '[Alice sent an image]',
      'IMAGE',
      '[Alice sent an image]',
      'IMAGE',
      'and these?',
    ]);
  });

  it('keeps within the byte budget, and a file no longer cached is its note', async () => {
    const { model, client, messages } = await setup('auto', 10, 12);
    await client.complete({ messages }, { sessionId: 's1' });
    expect(imagesOf(model.requests[0]!).map((i) => i.bytes.toString())).toEqual(['image three']);
    await client.complete({ messages }, { sessionId: 'another-session' });
    expect(imagesOf(model.requests[1]!)).toEqual([]);
    expect(model.requests[1]!.body.messages[3]!.content).toContain('(no longer available)');
  });

  it('OPENAI_VISION=off: notes only; a request without markers goes as it is', async () => {
    const { model, client, messages } = await setup('off');
    await client.complete({ messages }, { sessionId: 's1' });
    expect(imagesOf(model.requests[0]!)).toEqual([]);
    expect(model.requests[0]!.body.messages[3]!.content).toContain('(not shown: this model cannot see images)');
    await client.complete({ messages: [{ role: 'user', content: 'hi ⟦image:not-a-marker⟧' }] }, { sessionId: 's1' });
    expect(model.requests[1]!.body.messages[0]!.content).toBe('hi ⟦image:not-a-marker⟧');
  });

  it('a refusal: asked again with the notes, told once, remembered (auto)', async () => {
    const { model, client, messages, state } = await setup('auto');
    model.refuseImages('openai');
    const notices: string[] = [];
    const answer = await client.complete({ messages }, { sessionId: 's1', onNotice: (text) => notices.push(text) });
    expect(answer.text).toBe('ok');
    expect(model.requests.map((r) => [r.answer?.status, imagesOf(r).length])).toEqual([
      [400, 2],
      [200, 0],
    ]);
    expect(notices).toHaveLength(1);
    expect(state.canSee).toBe(false);
    await client.complete({ messages }, { sessionId: 's1', onNotice: (text) => notices.push(text) });
    expect(model.requests).toHaveLength(3);
    expect(notices).toHaveLength(1);
  });

  it.each(['deepseek', 'llamacpp'] as const)('%s: its refusal is recognised too (llama.cpp answers 500)', async (style) => {
    const { model, client, messages, state } = await setup('auto');
    model.refuseImages(style);
    expect((await client.complete({ messages }, { sessionId: 's1' })).text).toBe('ok');
    expect(model.requests.map((r) => [r.answer?.status, imagesOf(r).length])).toEqual([
      [style === 'llamacpp' ? 500 : 400, 2],
      [200, 0],
    ]);
    expect(state.canSee).toBe(false);
  });

  it('on: a refusal is answered from the notes too, but not remembered', async () => {
    const { model, client, messages, state } = await setup('on');
    model.refuseImages('ollama');
    await client.complete({ messages }, { sessionId: 's1' });
    expect(state.canSee).toBe(true);
    expect(model.requests.map((r) => r.answer?.status)).toEqual([400, 200]);
  });

  it('another 400 is not taken for a refusal of images', async () => {
    const { model, client, messages, state } = await setup('auto');
    model.enqueue({ status: 400, body: { error: { message: 'temperature must be between 0 and 2', type: 'invalid_request_error' } } });
    await expect(client.complete({ messages }, { sessionId: 's1' })).rejects.toThrow(/400/);
    expect(state.canSee).toBe(true);
  });

  it('the same message shown the same way is the same object from request to request', async () => {
    const { client, messages, model } = await setup('auto');
    await client.complete({ messages }, { sessionId: 's1' });
    await client.complete(
      { messages: [...messages, { role: 'assistant', content: 'two cats' }, { role: 'user', content: 'thanks' }] },
      { sessionId: 's1' },
    );
    const [a, b] = model.requests;
    expect(b!.raw.startsWith(a!.raw.slice(0, a!.raw.indexOf(',"stream"') - 2))).toBe(true);
  });
});
