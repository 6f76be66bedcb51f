// A DOCX is a ZIP archive, and mammoth (through JSZip) inflates every part it reads in full, trusting
// nothing but the data: a "zip bomb" whose directory claims small sizes still unpacks to gigabytes.
// Before mammoth sees it, each entry is inflated here with a hard cap on the output (zlib's
// maxOutputLength stops the inflater, so memory stays bounded whatever the directory says).
import { constants, inflateRawSync } from 'node:zlib';

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** The end-of-directory record is 22 bytes plus a comment of at most 65,535. */
const MAX_END_SEARCH = 22 + 0xffff;
const MAX_ENTRIES = 10_000;

export class ZipTooLargeError extends Error {
  override name = 'ZipTooLargeError';
}

function endOfDirectory(bytes: Buffer): number {
  const stop = Math.max(0, bytes.length - MAX_END_SEARCH);
  for (let at = bytes.length - 22; at >= stop; at--) if (bytes.readUInt32LE(at) === END_OF_DIRECTORY) return at;
  throw new ZipTooLargeError('no ZIP end-of-directory record');
}

/**
 * Throws ZipTooLargeError when the archive's entries unpack to more than `maxBytes` in all (or it
 * cannot be walked: ZIP64, unknown compression, more than 10,000 entries, offsets outside the file).
 */
export function checkZipUnpackedSize(bytes: Buffer, maxBytes: number): void {
  const end = endOfDirectory(bytes);
  const entries = bytes.readUInt16LE(end + 10);
  if (entries > MAX_ENTRIES) throw new ZipTooLargeError(`${entries} entries`);
  let at = bytes.readUInt32LE(end + 16);
  let left = maxBytes;
  for (let i = 0; i < entries; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== DIRECTORY_ENTRY) throw new ZipTooLargeError('a broken directory');
    const method = bytes.readUInt16LE(at + 10);
    const compressed = bytes.readUInt32LE(at + 20);
    const local = bytes.readUInt32LE(at + 42);
    if (compressed === 0xffffffff || local === 0xffffffff) throw new ZipTooLargeError('a ZIP64 entry');
    at += 46 + bytes.readUInt16LE(at + 28) + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
    if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== LOCAL_HEADER) throw new ZipTooLargeError('a broken entry');
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const data = bytes.subarray(start, start + compressed);
    if (method === 0) left -= data.length;
    else if (method === 8) {
      try {
        left -= inflateRawSync(data, { maxOutputLength: Math.max(1, left + 1), finishFlush: constants.Z_SYNC_FLUSH }).length;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
          throw new ZipTooLargeError(`unpacks to over ${maxBytes} bytes`);
        throw new ZipTooLargeError(`an entry does not inflate: ${(error as Error).message}`);
      }
    } else throw new ZipTooLargeError(`compression method ${method}`);
    if (left < 0) throw new ZipTooLargeError(`unpacks to over ${maxBytes} bytes`);
  }
}
