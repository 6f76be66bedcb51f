import { describe, expect, it } from 'vitest';
import { type Attachment, AttachmentFetchError } from '../../src/core/types.ts';
import { downloadAttachment, readCapped } from '../../src/media/download.ts';
import { MediaError } from '../../src/media/media-error.ts';
import { MemoryAdapter } from '../fakes/memory-adapter.ts';

const file: Attachment = { kind: 'file', ref: 'f', name: 'a.bin' };
const limits = { maxBytes: 1_000, timeoutMs: 2_000 };

async function problemOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error instanceof MediaError ? error.problem : `not a MediaError: ${String(error)}`;
  }
}

describe('downloading an attachment within a size cap and a time limit', () => {
  it('reads the whole file in chunks under the cap, and gives the adapter the cap', async () => {
    const adapter = new MemoryAdapter().serveFile('f', { bytes: Buffer.alloc(999, 7), chunkSize: 100 });
    const bytes = await downloadAttachment(adapter, file, limits);
    expect(bytes.length).toBe(999);
    expect(adapter.fetches).toEqual([{ ref: 'f', maxBytes: 1_000 }]);
  });

  it('stops reading one chunk past the cap (a file larger than it says), and cancels the stream', async () => {
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(400));
      },
      cancel() {
        cancelled = true;
      },
    });
    expect(await problemOf(readCapped(body, 1_000, new AbortController().signal))).toBe('too-large');
    expect(pulled).toBeLessThanOrEqual(4);
    expect(cancelled).toBe(true);
  });

  it('refuses without downloading when the platform already says the file is over the cap', async () => {
    const adapter = new MemoryAdapter().serveFile('f', { bytes: Buffer.alloc(10) });
    expect(await problemOf(downloadAttachment(adapter, { ...file, size: 5_000 }, limits))).toBe('too-large');
    expect(adapter.fetches).toEqual([]);
  });

  it('refuses when the server says (Content-Length) the body is over the cap', async () => {
    const adapter = new MemoryAdapter().serveFile('f', { bytes: Buffer.alloc(10), size: 50_000 });
    expect(await problemOf(downloadAttachment(adapter, file, limits))).toBe('too-large');
  });

  it('gives up on a download that stalls at the time limit', async () => {
    const adapter = new MemoryAdapter().serveFile('f', { stallAfter: Buffer.alloc(10) });
    expect(await problemOf(downloadAttachment(adapter, file, { ...limits, timeoutMs: 200 }))).toBe('timeout');
  });

  it.each(['not-found', 'expired', 'too-large', 'refused', 'unavailable'] as const)('passes on the adapter\'s "%s"', async (reason) => {
    const adapter = new MemoryAdapter().serveFile('f', { error: new AttachmentFetchError(reason, 'platform said no') });
    expect(await problemOf(downloadAttachment(adapter, file, limits))).toBe(reason);
  });

  it('a channel without fetchAttachment cannot download', async () => {
    expect(await problemOf(downloadAttachment(undefined, file, limits))).toBe('no-download');
  });

  it('the turn being stopped ends the download with the stop itself', async () => {
    const adapter = new MemoryAdapter().serveFile('f', { stallAfter: Buffer.alloc(10) });
    const stop = new AbortController();
    const pending = downloadAttachment(adapter, file, { ...limits, signal: stop.signal });
    stop.abort(new Error('stopped by Alice'));
    await expect(pending).rejects.toThrow('stopped by Alice');
  });
});
