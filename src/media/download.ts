// An attachment's bytes, read from the adapter's stream with a size cap and a time limit: the
// download stops (and the stream is cancelled) as soon as either is passed, so a file that lies
// about its size or a platform that stalls costs at most the cap and the time.
import { type Attachment, AttachmentFetchError, type ChannelAdapter } from '../core/types.ts';
import { MediaError } from './media-error.ts';

export interface DownloadLimits {
  maxBytes: number;
  timeoutMs: number;
  /** The turn's or the process's stop. */
  signal?: AbortSignal;
}

/** Reads `body` whole, refusing past `maxBytes`; `signal` aborts the read. */
export async function readCapped(body: ReadableStream<Uint8Array>, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel('over the size cap').catch(() => {});
        throw new MediaError('too-large', `the download passed ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
  return Buffer.concat(chunks, total);
}

/** Maps an adapter's refusal to the reason the chat is told. */
function fetchProblem(error: AttachmentFetchError): MediaError {
  return new MediaError(error.reason, error.message, { cause: error });
}

/** The attachment's bytes through its adapter, within the limits. */
export async function downloadAttachment(
  adapter: ChannelAdapter | undefined,
  attachment: Attachment,
  limits: DownloadLimits,
): Promise<Buffer> {
  if (!adapter?.fetchAttachment) throw new MediaError('no-download', `channel ${adapter?.id ?? '?'} cannot download attachments`);
  if (attachment.size !== undefined && attachment.size > limits.maxBytes) {
    throw new MediaError('too-large', `the platform says ${attachment.size} bytes, over the cap of ${limits.maxBytes}`);
  }
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal ? AbortSignal.any([limits.signal, timeout]) : timeout;
  try {
    const download = await adapter.fetchAttachment(attachment, { signal, maxBytes: limits.maxBytes });
    if (download.size !== undefined && download.size > limits.maxBytes) {
      await download.body.cancel().catch(() => {});
      throw new MediaError('too-large', `the server says ${download.size} bytes, over the cap of ${limits.maxBytes}`);
    }
    return await readCapped(download.body, limits.maxBytes, signal);
  } catch (error) {
    if (error instanceof MediaError) throw error;
    if (error instanceof AttachmentFetchError) throw fetchProblem(error);
    if (timeout.aborted && !limits.signal?.aborted) {
      throw new MediaError('timeout', `no complete download within ${limits.timeoutMs} ms`, { cause: error });
    }
    if (limits.signal?.aborted) throw error;
    throw new MediaError('unavailable', `the download failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
