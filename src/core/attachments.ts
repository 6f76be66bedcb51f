// What the core makes of attachments while it cannot read them: a note the model reads beside the
// message's text ("[Alice attached an image (image/jpeg, 34 KB): I cannot see attachments yet]"),
// and, for a message that is nothing but attachments, a short reply saying what the bot cannot
// read yet, so no model turn is spent on it.
import { speakerName } from './speaker-name.ts';
import type { Attachment, Inbound } from './types.ts';

const NOUN: Record<Attachment['kind'], string> = {
  image: 'an image',
  file: 'a file',
  audio: 'an audio recording',
  video: 'a video',
  sticker: 'a sticker',
  other: 'an attachment',
};

const PLURAL: Record<Attachment['kind'], string> = {
  image: 'images',
  file: 'files',
  audio: 'audio recordings',
  video: 'videos',
  sticker: 'stickers',
  other: 'attachments',
};

const MAX_NAME_CHARS = 80;

function size(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1_000)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A file name as a quoted, one-line, bounded string (it comes from the sender). */
function quotedName(name: string): string {
  const line = name
    .replace(/\s+/g, ' ')
    .replace(/[[\]"]/g, '')
    .trim();
  return `"${line.length > MAX_NAME_CHARS ? `${line.slice(0, MAX_NAME_CHARS - 1)}…` : line}"`;
}

function describe(attachment: Attachment): string {
  const details = [
    ...(attachment.name?.trim() ? [quotedName(attachment.name)] : []),
    ...(attachment.mimeType ? [attachment.mimeType] : []),
    ...(attachment.size !== undefined ? [size(attachment.size)] : []),
  ];
  return `${NOUN[attachment.kind]}${details.length ? ` (${details.join(', ')})` : ''}`;
}

/** The note for the model, one line per attachment; '' when there are none. */
export function attachmentNote(inbound: Pick<Inbound, 'sender' | 'attachments'>): string {
  const who = speakerName(inbound.sender.displayName, inbound.sender.id);
  return inbound.attachments.map((a) => `[${who} attached ${describe(a)}: I cannot see attachments yet]`).join('\n');
}

/** What the model reads for this message: its text, then the attachment note. */
export function textForModel(inbound: Pick<Inbound, 'sender' | 'attachments' | 'text'>): string {
  return [inbound.text, attachmentNote(inbound)].filter((part) => part.trim() !== '').join('\n');
}

/** The reply to a message with attachments and no text; undefined for any other message. */
export function unreadableReply(inbound: Pick<Inbound, 'attachments' | 'text'>): string | undefined {
  if (inbound.text.trim() !== '' || inbound.attachments.length === 0) return undefined;
  const kinds = [...new Set(inbound.attachments.map((a) => PLURAL[a.kind]))];
  const what = kinds.length === 1 ? kinds[0]! : `${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}`;
  return `I cannot read ${what} yet. Tell me in words what you need, and I will help.`;
}
