// Driving an adapter's fetchAttachment in tests: the download read to its bytes, or the refusal.
import { expect } from 'vitest';
import { type Attachment, AttachmentFetchError, type ChannelAdapter } from '../../src/core/types.ts';

export const MB = 1024 * 1024;

export async function download(adapter: Pick<ChannelAdapter, 'fetchAttachment'>, attachment: Attachment, maxBytes = 10 * MB) {
  const result = await adapter.fetchAttachment!(attachment, { signal: AbortSignal.timeout(10_000), maxBytes });
  return { ...result, bytes: Buffer.from(await new Response(result.body).arrayBuffer()) };
}

/** The AttachmentFetchError `promise` rejects with (fails the test when it resolves or rejects otherwise). */
export async function refusal(promise: Promise<unknown>): Promise<AttachmentFetchError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AttachmentFetchError);
  return error as AttachmentFetchError;
}
