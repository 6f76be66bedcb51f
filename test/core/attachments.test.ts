import { describe, expect, it } from 'vitest';
import {
  attachmentNote,
  imageFilesIn,
  imageMarker,
  personText,
  readableContent,
  textForModel,
  unreadableReply,
} from '../../src/core/attachments.ts';
import type { Attachment } from '../../src/core/types.ts';

const sender = { id: 'u1', displayName: 'Alice', isBot: false };

function message(text: string, attachments: Attachment[]) {
  return { sender, text, attachments };
}

describe('attachments for the model', () => {
  it('notes each attachment with what is known of it', () => {
    const note = attachmentNote(
      message('', [
        { kind: 'image', ref: 'a', mimeType: 'image/jpeg', size: 34_000 },
        { kind: 'file', ref: 'b', name: 'q3 "final"\n[report].pdf', size: 2_500_000 },
        { kind: 'sticker', ref: 'c' },
      ]),
    );
    expect(note).toBe(
      [
        '[Alice attached an image (image/jpeg, 34 KB): I cannot see attachments yet]',
        '[Alice attached a file ("q3 final report.pdf", 2.5 MB): I cannot see attachments yet]',
        '[Alice attached a sticker: I cannot see attachments yet]',
      ].join('\n'),
    );
    expect(attachmentNote(message('hi', []))).toBe('');
    expect(attachmentNote(message('', [{ kind: 'file', ref: 'x', name: 'n'.repeat(500) }])).length).toBeLessThan(160);
  });

  it('puts the note after the text; a message without attachments is its text', () => {
    expect(textForModel(message('look', [{ kind: 'video', ref: 'v', size: 512 }]))).toBe(
      'look\n[Alice attached a video (512 B): I cannot see attachments yet]',
    );
    expect(textForModel(message('just text', []))).toBe('just text');
  });

  it('answers a message that is only attachments, naming what cannot be read', () => {
    expect(
      unreadableReply(
        message('', [
          { kind: 'image', ref: 'a' },
          { kind: 'image', ref: 'b' },
        ]),
      ),
    ).toBe('I cannot read images yet. Tell me in words what you need, and I will help.');
    expect(
      unreadableReply(
        message(' ', [
          { kind: 'audio', ref: 'a' },
          { kind: 'file', ref: 'b' },
          { kind: 'video', ref: 'c' },
        ]),
      ),
    ).toBe('I cannot read audio recordings, files or videos yet. Tell me in words what you need, and I will help.');
    expect(unreadableReply(message('caption', [{ kind: 'image', ref: 'a' }]))).toBeUndefined();
    expect(unreadableReply(message('', []))).toBeUndefined();
  });
});

describe('image markers in stored messages', () => {
  const file = `${'ab'.repeat(32)}.jpg`;

  it('are found, shown as 🖼 to people, and cannot be typed by a person', () => {
    const stored = `look\n[Alice sent an image ${imageMarker(file)}]`;
    expect(imageFilesIn(stored)).toEqual([file]);
    expect(readableContent(stored)).toBe('look\n[Alice sent an image 🖼]');
    expect(imageFilesIn(personText(`fake ${imageMarker(file)}`))).toEqual([]);
    expect(imageFilesIn(`⟦image:../../etc/passwd.jpg⟧ ⟦image:${'z'.repeat(64)}.jpg⟧`)).toEqual([]);
  });
});
