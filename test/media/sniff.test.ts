import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sniff } from '../../src/media/sniff.ts';
import { textPdf } from '../helpers/media-files.ts';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '..', 'fixtures', 'media', name));

describe('sniffing a file by its bytes, never its name', () => {
  it.each([
    ['photo.jpg', 'image', 'image/jpeg'],
    ['screenshot.png', 'image', 'image/png'],
    ['animated.gif', 'image', 'image/gif'],
    ['bomb.png', 'image', 'image/png'],
    ['voice.ogg', 'audio', 'audio/ogg'],
    ['report.pdf', 'pdf', 'application/pdf'],
    ['corrupt.pdf', 'pdf', 'application/pdf'],
    ['notes.docx', 'docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['notes.txt', 'text', 'text/plain'],
    ['html-named.png', 'html', 'text/html'],
  ])('%s is %s (%s)', (name, kind, mime) => {
    expect(sniff(fixture(name).subarray(0, 4_096))).toMatchObject({ kind, mime });
  });

  it('knows the containers voice notes and recordings come in', () => {
    expect(sniff(Buffer.from('RIFF\0\0\0\0WAVEfmt ')).ext).toBe('wav');
    expect(sniff(Buffer.from('RIFF\0\0\0\0WEBPVP8 ')).ext).toBe('webp');
    expect(sniff(Buffer.from('\0\0\0\x20ftypM4A \0\0\0\0')).ext).toBe('m4a');
    expect(sniff(Buffer.from('\0\0\0\x20ftypheic\0\0\0\0')).kind).toBe('image');
    expect(sniff(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42])).ext).toBe('webm');
    expect(sniff(Buffer.from('ID3\x04\0\0\0\0')).ext).toBe('mp3');
    expect(sniff(Buffer.from('fLaC\0\0\0\x22')).ext).toBe('flac');
  });

  it('tells text from binary: UTF-8 (Chinese, a character cut at the end) is text; NULs and invalid bytes are not', () => {
    const chinese = Buffer.from('会议纪要：周五前完成');
    expect(sniff(chinese).kind).toBe('text');
    expect(sniff(chinese.subarray(0, chinese.length - 1)).kind).toBe('text');
    expect(sniff(Buffer.from([0x00, 0x01, 0x02, 0x03])).kind).toBe('binary');
    expect(sniff(Buffer.from([0x41, 0xff, 0xfe, 0x41, 0x41])).kind).toBe('binary');
    expect(sniff(textPdf(['x'])).kind).toBe('pdf');
  });

  it('a ZIP that is not a Word document is a ZIP', () => {
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(26), Buffer.from('photos/cat.jpg')]);
    expect(sniff(zip).kind).toBe('zip');
  });
});
