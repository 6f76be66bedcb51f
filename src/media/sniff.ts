// What a file is, told by its first bytes (magic numbers), never by its name or the type the
// platform claims: a "photo.png" that is an HTML page is an HTML page.

type SniffedKind = 'image' | 'audio' | 'video' | 'pdf' | 'docx' | 'zip' | 'html' | 'text' | 'binary';

export interface Sniffed {
  kind: SniffedKind;
  /** The MIME type the bytes show (what a transcription endpoint or a data: URL is told). */
  mime: string;
  /** The usual file extension for it, without the dot (OpenAI's endpoints read the format from it). */
  ext: string;
}

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
  if (bytes.length < at + signature.length) return false;
  return signature.every((byte, i) => bytes[at + i] === byte);
}

/** ISO base media (MP4, M4A, HEIC, AVIF): `ftyp` at offset 4 and a brand after it. */
function isoBrand(bytes: Uint8Array): string | undefined {
  return bytes.length >= 12 && ascii(bytes, 4, 8) === 'ftyp' ? ascii(bytes, 8, 12) : undefined;
}

function isoMedia(brand: string): Sniffed {
  if (brand === 'avif' || brand === 'avis') return { kind: 'image', mime: 'image/avif', ext: 'avif' };
  if (/^hei[cxms]|^mif1|^msf1|^hevc/.test(brand)) return { kind: 'image', mime: 'image/heic', ext: 'heic' };
  if (brand === 'M4A ' || brand === 'M4B ') return { kind: 'audio', mime: 'audio/mp4', ext: 'm4a' };
  if (brand.startsWith('qt')) return { kind: 'video', mime: 'video/quicktime', ext: 'mov' };
  // isom, mp41, mp42, 3gp... : a container that may hold only sound (a browser's recording) or video.
  return { kind: 'video', mime: 'video/mp4', ext: 'mp4' };
}

/** Whether `bytes` (a prefix of the file) read as text: valid UTF-8 (a cut last character allowed) without control bytes. */
function isText(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return true;
  for (const byte of bytes) {
    if (byte === 0 || (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b)) return false;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, lastWholeChar(bytes)));
    return true;
  } catch {
    return false;
  }
}

/** Where the last complete UTF-8 character of `bytes` ends (a prefix may cut one in two). */
function lastWholeChar(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

const HTML = /^\s*(<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<!--)/i;

/** The kind of the file whose first bytes (4 KB is plenty) are `head`. */
export function sniff(head: Uint8Array): Sniffed {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { kind: 'image', mime: 'image/jpeg', ext: 'jpg' };
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { kind: 'image', mime: 'image/png', ext: 'png' };
  if (head.length >= 6 && /^GIF8[79]a$/.test(ascii(head, 0, 6))) return { kind: 'image', mime: 'image/gif', ext: 'gif' };
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF') {
    const form = ascii(head, 8, 12);
    if (form === 'WEBP') return { kind: 'image', mime: 'image/webp', ext: 'webp' };
    if (form === 'WAVE') return { kind: 'audio', mime: 'audio/wav', ext: 'wav' };
    if (form === 'AVI ') return { kind: 'video', mime: 'video/x-msvideo', ext: 'avi' };
  }
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) {
    return { kind: 'image', mime: 'image/tiff', ext: 'tiff' };
  }
  if (startsWith(head, [0x42, 0x4d]) && head.length >= 14) return { kind: 'image', mime: 'image/bmp', ext: 'bmp' };
  const brand = isoBrand(head);
  if (brand) return isoMedia(brand);
  if (head.length >= 4 && ascii(head, 0, 4) === 'OggS') return { kind: 'audio', mime: 'audio/ogg', ext: 'ogg' };
  if (head.length >= 4 && ascii(head, 0, 4) === 'fLaC') return { kind: 'audio', mime: 'audio/flac', ext: 'flac' };
  if (head.length >= 3 && ascii(head, 0, 3) === 'ID3') return { kind: 'audio', mime: 'audio/mpeg', ext: 'mp3' };
  // An MPEG audio frame sync (11 set bits), layer III or II.
  if (head.length >= 2 && head[0] === 0xff && (head[1]! & 0xe0) === 0xe0 && (head[1]! & 0x06) !== 0) {
    return { kind: 'audio', mime: 'audio/mpeg', ext: 'mp3' };
  }
  if (head.length >= 6 && ascii(head, 0, 6) === '#!AMR\n') return { kind: 'audio', mime: 'audio/amr', ext: 'amr' };
  // Matroska / WebM (EBML): a browser's voice recording is audio-only WebM.
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return { kind: 'audio', mime: 'audio/webm', ext: 'webm' };
  if (head.length >= 5 && ascii(head, 0, 5) === '%PDF-') return { kind: 'pdf', mime: 'application/pdf', ext: 'pdf' };
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) {
    // A DOCX names its parts early: [Content_Types].xml and word/... are among the first entries.
    const text = ascii(head, 0, Math.min(head.length, 4_096));
    if (text.includes('word/'))
      return { kind: 'docx', mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', ext: 'docx' };
    return { kind: 'zip', mime: 'application/zip', ext: 'zip' };
  }
  if (isText(head)) {
    const text = new TextDecoder().decode(head.subarray(0, Math.min(head.length, 1_024))).replace(/^\uFEFF/, '');
    if (HTML.test(text)) return { kind: 'html', mime: 'text/html', ext: 'html' };
    return { kind: 'text', mime: 'text/plain', ext: 'txt' };
  }
  return { kind: 'binary', mime: 'application/octet-stream', ext: 'bin' };
}
