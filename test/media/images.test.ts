import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareImage } from '../../src/media/images.ts';
import { MediaError } from '../../src/media/media-error.ts';
import { tempDir } from '../helpers/harness.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'media');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const dir = tempDir('parley-images-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * prepareImage on `file` in a fresh Node process (so nothing else in this worker counts): its
 * outcome and the process's peak resident set size in MB.
 */
function inChild(file: string): { outcome: string; peakMb: number } {
  const script = `
    import { readFileSync } from 'node:fs';
    import { prepareImage } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'src', 'media', 'images.ts'))};
    let outcome;
    try {
      const image = await prepareImage(readFileSync(${JSON.stringify(file)}));
      outcome = 'ok ' + image.width + 'x' + image.height;
    } catch (error) {
      outcome = 'refused ' + error.problem;
    }
    console.log(JSON.stringify({ outcome, peakMb: process.resourceUsage().maxRSS / 1024 }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

describe('images made fit for a model', () => {
  it('a large photo is downscaled to a long side of 2048 and re-encoded as JPEG', async () => {
    const image = await prepareImage(fixture('photo.jpg'));
    expect([image.width, image.height, image.mime]).toEqual([2048, 1365, 'image/jpeg']);
    const meta = await sharp(image.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 2048, 1365]);
  });

  it('a small screenshot keeps its size; its transparency is flattened for JPEG, kept in WebP', async () => {
    const jpeg = await prepareImage(fixture('screenshot.png'));
    expect([jpeg.width, jpeg.height]).toEqual([640, 360]);
    expect((await sharp(jpeg.bytes).metadata()).hasAlpha).toBe(false);
    const webp = await prepareImage(fixture('screenshot.png'), { maxSide: 2048, maxInputPixels: 40_000_000, format: 'webp' });
    expect((await sharp(webp.bytes).metadata()).format).toBe('webp');
  });

  it('an animation becomes its first frame (red, not blue)', async () => {
    const image = await prepareImage(fixture('animated.gif'));
    expect(image.animated).toBe(true);
    const decoded = await sharp(image.bytes).metadata();
    expect(decoded.pages ?? 1).toBe(1);
    const { data } = await sharp(image.bytes).raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeGreaterThan(200);
    expect(data[2]).toBeLessThan(60);
  });

  it('turns a photo upright by its EXIF orientation', async () => {
    const sideways = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#888' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const image = await prepareImage(sideways);
    expect([image.width, image.height]).toEqual([100, 300]);
  });

  it.each([
    ['html-named.png', 'unreadable-image'],
    ['report.pdf', 'unreadable-image'],
  ])('refuses %s (%s)', async (name, problem) => {
    await expect(prepareImage(fixture(name))).rejects.toMatchObject({ problem });
  });

  it('refuses the decompression bomb from its header, with its size', async () => {
    const error = await prepareImage(fixture('bomb.png')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    expect(error).toMatchObject({ problem: 'too-many-pixels', detail: '20000×20000' });
  });

  it('peak RSS stays under 300 MB on the bomb and on the largest image allowed (measured in a child process)', async () => {
    const largest = join(dir, 'largest.png');
    // 6,300 × 6,300 = 39.7 million pixels, just under the 40 million limit.
    writeFileSync(
      largest,
      await sharp({ create: { width: 6_300, height: 6_300, channels: 3, background: '#abc' } })
        .png()
        .toBuffer(),
    );
    const bomb = inChild(join(FIXTURES, 'bomb.png'));
    const allowed = inChild(largest);
    expect(bomb.outcome).toBe('refused too-many-pixels');
    expect(allowed.outcome).toBe('ok 2048x2048');
    console.info(`peak RSS: bomb ${bomb.peakMb.toFixed(0)} MB, 39.7-megapixel PNG ${allowed.peakMb.toFixed(0)} MB`);
    expect(bomb.peakMb).toBeLessThan(300);
    expect(allowed.peakMb).toBeLessThan(300);
  });
});
