// Bytes that claim to be a page: refused unless they are UTF-8 text. Binary (NUL bytes), other
// encodings (invalid UTF-8) and oversized input get a clear error instead of becoming a page, and
// reads are bounded so a link to /dev/zero or an endless pipe cannot exhaust memory.
import { open } from 'node:fs/promises';
import { PageFileError } from './page-error.ts';

/** A page holds at most 1,000,000 characters (4 bytes each at most) plus its front matter. */
const MAX_PAGE_FILE_BYTES = 8 * 1024 * 1024;

const TOO_LARGE = `it is larger than ${MAX_PAGE_FILE_BYTES / 1024 / 1024} MB (a page holds at most 1,000,000 characters)`;

/** Decodes a page file; throws PageFileError for binary data or invalid UTF-8. A leading BOM is dropped. */
export function decodePageText(bytes: Uint8Array): string {
  if (bytes.length > MAX_PAGE_FILE_BYTES) throw new PageFileError(`not read: ${TOO_LARGE}`);
  if (bytes.includes(0)) throw new PageFileError('not a text file: it contains NUL bytes (binary data, or UTF-16 text)');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new PageFileError('not UTF-8 text: it contains byte sequences that are not valid UTF-8 (binary data, or another encoding)');
  }
}

/** Reads at most MAX_PAGE_FILE_BYTES (+1, to notice more) from a file without loading more. */
export async function readPageBytes(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    // Chunks sized to the file (+1 byte, to notice that it grew) and not zero-filled: only the bytes
    // read are kept. A fresh 1 MB per file made an import of many small files mostly garbage collection.
    const { size } = await handle.stat();
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(size + 1 - total, 64 * 1024), 1024 * 1024, MAX_PAGE_FILE_BYTES + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > MAX_PAGE_FILE_BYTES) throw new PageFileError(`not read: ${TOO_LARGE}`);
    }
    return Buffer.concat(chunks);
  } finally {
    await handle.close();
  }
}

/** Reads a stream (standard input) with the same bound. */
export async function readStreamBytes(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    total += bytes.length;
    if (total > MAX_PAGE_FILE_BYTES) throw new PageFileError(`not read: ${TOO_LARGE}`);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}
