// A DOCX that is a zip bomb (a part of 400 MB of zeros, 0.4 MB packed), whether its directory tells
// the truth or lies: refused before mammoth reads it, with the memory of the process bounded.
// Without the guard, mammoth (JSZip) peaks at about 1.2 GB on the honest one and 460 MB on the liar.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDeflateRaw, deflateRawSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { checkZipUnpackedSize, ZipTooLargeError } from '../../src/media/zip-guard.ts';
import { tempDir } from '../helpers/harness.ts';

const dir = tempDir('parley-docx-bomb-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `megabytes` of zeros, deflated (raw), made a megabyte at a time. */
async function deflatedZeros(megabytes: number): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const zeros = Buffer.alloc(1_000_000);
  for (let i = 0; i < megabytes; i++) if (!deflate.write(zeros)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await done;
  return Buffer.concat(chunks);
}

/** A ZIP of deflated entries whose headers claim `claimed` bytes unpacked for each. */
function zip(entries: { name: string; data: Buffer; claimed: number }[]): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const { name, data, claimed } of entries) {
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(claimed, 22);
    local.writeUInt16LE(Buffer.byteLength(name), 26);
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(20, 6);
    head.writeUInt16LE(8, 10);
    head.writeUInt32LE(data.length, 20);
    head.writeUInt32LE(claimed, 24);
    head.writeUInt16LE(Buffer.byteLength(name), 28);
    head.writeUInt32LE(offset, 42);
    locals.push(local, Buffer.from(name), data);
    directory.push(head, Buffer.from(name));
    offset += 30 + Buffer.byteLength(name) + data.length;
  }
  const dirBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dirBytes, end]);
}

describe('a DOCX zip bomb', () => {
  it.each([
    ['tells the truth', 400_000_000],
    ['lies', 100],
  ])('whose directory %s is refused before mammoth unpacks it, the process staying under 300 MB', async (_, claimed) => {
    const types = Buffer.from('<?xml version="1.0"?><Types/>');
    const file = join(dir, `bomb-${claimed}.docx`);
    const entries = [
      { name: '[Content_Types].xml', data: deflateRawSync(types), claimed: types.length },
      { name: 'word/document.xml', data: await deflatedZeros(400), claimed },
    ];
    writeFileSync(file, zip(entries));
    const script = `
      import { readFileSync } from 'node:fs';
      import { docxText } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'src', 'media', 'documents.ts'))};
      let outcome;
      try {
        await docxText(readFileSync(${JSON.stringify(file)}), 1000);
        outcome = 'read';
      } catch (error) {
        outcome = 'refused ' + error.problem + ': ' + error.message;
      }
      console.log(JSON.stringify({ outcome, peakMb: process.resourceUsage().maxRSS / 1024 }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const { outcome, peakMb } = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(outcome).toMatch(/^refused unreadable-document: refused before unpacking/);
    expect(peakMb).toBeLessThan(300);
  });

  it('lets an archive within the cap through, and refuses one past it or one it cannot walk', () => {
    const part = deflateRawSync(Buffer.alloc(5_000, 'a'));
    const small = zip([{ name: 'word/document.xml', data: part, claimed: 5_000 }]);
    expect(() => checkZipUnpackedSize(small, 10_000)).not.toThrow();
    expect(() => checkZipUnpackedSize(small, 4_999)).toThrow(ZipTooLargeError);
    expect(() => checkZipUnpackedSize(Buffer.from('PK\x03\x04 not really'), 10_000)).toThrow(ZipTooLargeError);
  });
});
