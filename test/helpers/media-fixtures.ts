// The real media files in test/fixtures/media (made by scripts/media-fixtures.mjs), as the
// platform fakes serve them, with what is in them.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'media');

/** voice.ogg: a 2-second OGG/Opus voice note. */
export const VOICE_SECONDS = 2;
/** One string per page of report.pdf. */
export const PDF_PAGES = [
  'Quarterly report: revenue grew 12 percent.',
  'Page two: the new office opens in March.',
  'Page three: hiring two engineers.',
];

export interface MediaFixture {
  name: string;
  mimeType: string;
  bytes: Buffer;
}

function fixture(name: string, mimeType: string): MediaFixture {
  return { name, mimeType, bytes: readFileSync(join(dir, name)) };
}

/** 640×360 with transparency. */
export const PNG = fixture('screenshot.png', 'image/png');
/** 3000×2000. */
export const JPEG = fixture('photo.jpg', 'image/jpeg');
export const VOICE = fixture('voice.ogg', 'audio/ogg');
export const PDF = fixture('report.pdf', 'application/pdf');
export const DOCX = fixture('notes.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
