// Writes the small real files the media tests read (test/fixtures/media/): images made with sharp,
// a voice note encoded by opusenc (OGG/Opus, as Telegram, Discord and Feishu send them), a PDF
// with text written by hand (three pages), a damaged PDF, a DOCX (a minimal OOXML package zipped
// by hand), a decompression bomb (a 20,000 × 20,000 one-bit PNG, deflated to a few dozen KB)
// and an HTML page named like a PNG. Run once: `node scripts/media-fixtures.mjs`; the files are
// committed, so tests do not need opusenc.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { textPdf } from '../test/helpers/media-files.ts';

const out = join(import.meta.dirname, '..', 'test', 'fixtures', 'media');

function pngChunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A valid one-bit greyscale PNG of `side` × `side` black pixels: every row is a filter byte and zeros. */
function bombPng(side) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const raw = Buffer.alloc(side * (1 + Math.ceil(side / 8)));
  const idat = deflateSync(raw, { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A ZIP archive (deflated entries) of `files`: name → content. */
function zip(files) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A minimal Word document: the three parts a DOCX needs, one paragraph per line. */
function docx(paragraphs) {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${p}</w:t></w:r></w:p>`).join('');
  return zip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  });
}

/** A mono 16-bit WAV of `seconds` of a 440 Hz tone at 16 kHz. */
function toneWav(seconds) {
  const rate = 16_000;
  const samples = Math.round(rate * seconds);
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) wav.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8_000), 44 + i * 2);
  return wav;
}

async function main() {
  // A 3000 × 2000 photo-like gradient with a red square (big enough to be downscaled).
  const photo = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#3366aa' } })
    .composite([{ input: { create: { width: 800, height: 800, channels: 3, background: '#cc2222' } }, left: 1100, top: 600 }])
    .jpeg({ quality: 70 })
    .toBuffer();
  writeFileSync(join(out, 'photo.jpg'), photo);
  // A small screenshot with transparency.
  const screenshot = await sharp({ create: { width: 640, height: 360, channels: 4, background: { r: 20, g: 200, b: 20, alpha: 0.5 } } })
    .png()
    .toBuffer();
  writeFileSync(join(out, 'screenshot.png'), screenshot);
  // A two-frame animated GIF (red, then blue).
  const red = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
  const blue = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#0000ff' } })
    .png()
    .toBuffer();
  writeFileSync(
    join(out, 'animated.gif'),
    await sharp([red, blue], { join: { animated: true } })
      .gif({ delay: [200, 200] })
      .toBuffer(),
  );
  writeFileSync(join(out, 'bomb.png'), bombPng(20_000));
  writeFileSync(
    join(out, 'html-named.png'),
    '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><p>Your session expired. Please sign in again.</p></body></html>\n',
  );
  writeFileSync(
    join(out, 'report.pdf'),
    textPdf([
      'Quarterly report: revenue grew 12 percent.',
      'Page two: the new office opens in March.',
      'Page three: hiring two engineers.',
    ]),
  );
  writeFileSync(
    join(out, 'corrupt.pdf'),
    Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R'), Buffer.alloc(300, 0xa7)]),
  );
  writeFileSync(join(out, 'notes.docx'), docx(['Meeting notes for the launch.', 'Action: Bob books the venue.']));
  writeFileSync(join(out, 'notes.txt'), 'Shopping list:\n- oat milk\n- coffee beans\n');
  const dir = mkdtempSync(join(tmpdir(), 'parley-fixtures-'));
  try {
    writeFileSync(join(dir, 'tone.wav'), toneWav(2));
    execFileSync('opusenc', ['--quiet', '--bitrate', '16', join(dir, 'tone.wav'), join(out, 'voice.ogg')]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) await main();
