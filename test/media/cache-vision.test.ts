import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LlmError } from '../../src/llm/errors.ts';
import { MediaCache } from '../../src/media/cache.ts';
import { isImageRefusal, VisionState } from '../../src/media/vision.ts';
import { tempDir } from '../helpers/harness.ts';

const dir = tempDir('parley-media-cache-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the media cache', () => {
  it('keeps a file per session by its content, reads it back, and refuses names that are not its own', async () => {
    const cache = new MediaCache(join(dir, 'a'));
    const name = await cache.put('s1', Buffer.from('jpeg bytes'), 'jpg');
    expect(name).toMatch(/^[0-9a-f]{64}\.jpg$/);
    expect(await cache.put('s1', Buffer.from('jpeg bytes'), 'jpg')).toBe(name);
    expect((await cache.read('s1', name))?.toString()).toBe('jpeg bytes');
    expect(await cache.read('s2', name)).toBeUndefined();
    expect(await cache.read('s1', '../s2/x.jpg')).toBeUndefined();
    await expect(cache.put('../etc', Buffer.from('x'), 'jpg')).rejects.toThrow(/not a session id/);
  });

  it('drops a session whole (/reset), and sweeps files past the age limit', async () => {
    const cache = new MediaCache(join(dir, 'b'));
    const old = await cache.put('s1', Buffer.from('old'), 'jpg');
    const fresh = await cache.put('s2', Buffer.from('fresh'), 'jpg');
    const gone = await cache.put('s3', Buffer.from('reset'), 'jpg');
    const day = 86_400_000;
    utimesSync(join(dir, 'b', 's1', old), new Date(Date.now() - 8 * day), new Date(Date.now() - 8 * day));
    await cache.dropSession('s3');
    expect(await cache.read('s3', gone)).toBeUndefined();
    expect(await cache.sweep(7 * day)).toBe(1);
    expect(await cache.read('s1', old)).toBeUndefined();
    expect(existsSync(join(dir, 'b', 's1'))).toBe(false);
    expect((await cache.read('s2', fresh))?.toString()).toBe('fresh');
  });
});

const refused = (status: number, message: string) => new LlmError('other', `The model server answered ${status}: ${message}`, { status });

describe('telling a refusal of image input', () => {
  it.each([
    [400, 'Invalid content type. image_url is only supported by certain models.'],
    [
      400,
      'Failed to deserialize the JSON body into the target type: messages[1]: unknown variant `image_url`, expected `text` at line 1 column 679289',
    ],
    [400, 'this model does not support image input'],
    [400, 'json: cannot unmarshal array into Go struct field Message.messages.content of type string'],
    [500, 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj'],
    [400, 'At most 0 image(s) may be provided in one request.'],
    [400, 'Model do not support image input.'],
  ])('%s %s', (status, message) => {
    expect(isImageRefusal(refused(status, message))).toBeDefined();
  });

  it('not other failures', () => {
    expect(isImageRefusal(refused(400, 'This model maximum context length is 8192 tokens'))).toBeUndefined();
    expect(isImageRefusal(refused(503, 'image input is not supported'))).toBeUndefined();
    expect(isImageRefusal(new LlmError('timeout', 'The model request timed out'))).toBeUndefined();
    expect(isImageRefusal(new Error('image_url is only supported by certain models'))).toBeUndefined();
  });
});

describe('the vision setting', () => {
  it('auto: sees until a refusal, which is kept in the file for the model (a new state reads it), not for another model', async () => {
    const file = join(dir, 'vision', 'vision.json');
    const model = { model: 'text-only', baseUrl: 'http://127.0.0.1:1/v1' };
    const vision = new VisionState('auto', model, file);
    expect(vision.canSee).toBe(true);
    await vision.refused('400: image_url is only supported');
    expect(vision.canSee).toBe(false);
    expect(new VisionState('auto', model, file).canSee).toBe(false);
    expect(new VisionState('auto', { ...model, model: 'gpt-4o' }, file).canSee).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      'http://127.0.0.1:1/v1 text-only': { reason: '400: image_url is only supported' },
    });
    // on and off do not read or write it.
    expect(new VisionState('on', model, file).canSee).toBe(true);
    expect(new VisionState('off', { ...model, model: 'gpt-4o' }, file).canSee).toBe(false);
  });

  it('a damaged file is read as nothing known', () => {
    const file = join(dir, 'vision', 'vision.json');
    rmSync(file, { force: true });
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{not json');
    expect(new VisionState('auto', { model: 'm' }, broken).canSee).toBe(true);
  });
});
