// How attachments appear in the text the model reads and the conversation keeps. The media intake
// (src/media) reads what it can (images, voice notes, documents) and writes its findings into the
// user message; this file holds what every layer shares: the marker that stands for a cached
// image in a stored message ("⟦image:<sha256>.jpg⟧", never base64), the way a person's own text
// is kept from forging one, the notes for attachments that are not read ("[Alice attached a video
// (clip.mp4, 3.2 MB): I cannot see attachments like this yet]") and the reply to a message that is
// nothing but attachments the bot cannot read.
import { DEFAULT_LOCALE, type Locale, t } from './i18n/index.ts';
import { speakerName } from './speaker-name.ts';
import type { Attachment, Inbound } from './types.ts';

const MAX_NAME_CHARS = 80;

/** A cached image in a stored user message: `⟦image:<64 hex>.<jpg|webp>⟧`. */
export const IMAGE_MARKER = /⟦image:([0-9a-f]{64}\.(?:jpg|webp))⟧/g;

export const imageMarker = (file: string): string => `⟦image:${file}⟧`;

/** The cached image files a stored message refers to, in order. */
export function imageFilesIn(content: string): string[] {
  return [...content.matchAll(IMAGE_MARKER)].map((match) => match[1]!);
}

/**
 * Text that came from a person (a message, a caption, a file name, a display name) as it goes
 * into a stored message: the marker's brackets are replaced, so no one can type a marker and make
 * the bot send the model an image it never received.
 */
export function personText(text: string): string {
  return text.replaceAll('⟦', '[').replaceAll('⟧', ']');
}

/** Stored content as a person reads it (the web console's transcript): each image marker as 🖼. */
export function readableContent(content: string): string {
  return content.replace(IMAGE_MARKER, '🖼');
}

function size(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1_000)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A file name as a quoted, one-line, bounded string (it comes from the sender). */
export function quotedName(name: string): string {
  const line = personText(name)
    .replace(/\s+/g, ' ')
    .replace(/[[\]"]/g, '')
    .trim();
  return `"${line.length > MAX_NAME_CHARS ? `${line.slice(0, MAX_NAME_CHARS - 1)}…` : line}"`;
}

/** "an image (\"photo.jpg\", image/jpeg, 34 KB)": what the attachment is, as far as the platform said. */
export function describeAttachment(attachment: Attachment, locale: Locale = DEFAULT_LOCALE): string {
  const details = [
    ...(attachment.name?.trim() ? [quotedName(attachment.name)] : []),
    ...(attachment.mimeType ? [attachment.mimeType.replace(/[^\w.+/-]/g, '')] : []),
    ...(attachment.size !== undefined ? [size(attachment.size)] : []),
  ];
  return `${t(locale, `media.noun.${attachment.kind}`)}${details.length ? ` (${details.join(', ')})` : ''}`;
}

/** The sender as the notes name them. */
export const senderOf = (inbound: Pick<Inbound, 'sender'>): string =>
  personText(speakerName(inbound.sender.displayName, inbound.sender.id));

/** The note for the model when nothing reads attachments (no media intake), one line per attachment; '' when there are none. */
export function attachmentNote(inbound: Pick<Inbound, 'sender' | 'attachments'>, locale: Locale = DEFAULT_LOCALE): string {
  const who = senderOf(inbound);
  return inbound.attachments.map((a) => t(locale, 'media.note.cannot', { who, what: describeAttachment(a, locale) })).join('\n');
}

/** What the model reads for a message when its attachments are not read: its text, then the attachment note. */
export function textForModel(inbound: Pick<Inbound, 'sender' | 'attachments' | 'text'>, locale: Locale = DEFAULT_LOCALE): string {
  return [personText(inbound.text), attachmentNote(inbound, locale)].filter((part) => part.trim() !== '').join('\n');
}

/**
 * The reply to a message with attachments and no text, none of which `canRead` (all of them, by
 * default: no media intake); undefined for any other message.
 */
export function unreadableReply(
  inbound: Pick<Inbound, 'attachments' | 'text'>,
  canRead: (attachment: Attachment) => boolean = () => false,
  locale: Locale = DEFAULT_LOCALE,
): string | undefined {
  if (inbound.text.trim() !== '' || inbound.attachments.length === 0) return undefined;
  if (inbound.attachments.some(canRead)) return undefined;
  const kinds = [...new Set(inbound.attachments.map((a) => t(locale, `media.plural.${a.kind}`)))];
  const what = kinds.length === 1 ? kinds[0]! : `${kinds.slice(0, -1).join(', ')}${t(locale, 'media.or')}${kinds.at(-1)}`;
  return t(locale, 'media.unreadable', { what });
}
