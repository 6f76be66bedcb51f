// What a Telegram message carries besides text, as neutral attachments. `ref` is the file_id, which
// getFile resolves later. Photos come in several sizes; the largest one getFile will still serve
// (20 MB, files.ts) stands for the photo.
import type { Message, PhotoSize } from 'grammy/types';
import type { Attachment } from '../../src/core/types.ts';
import { TELEGRAM_DOWNLOAD_LIMIT } from './files.ts';

interface TelegramFile {
  file_id: string;
  file_size?: number;
  file_name?: string;
  mime_type?: string;
}

const MAX_MIME_CHARS = 200;

function attachment(kind: Attachment['kind'], file: TelegramFile, mimeType = file.mime_type): Attachment {
  return {
    kind,
    ref: file.file_id,
    ...(file.file_name ? { name: file.file_name } : {}),
    ...(mimeType && mimeType.length <= MAX_MIME_CHARS ? { mimeType } : {}),
    ...(file.file_size !== undefined ? { size: file.file_size } : {}),
  };
}

function withDuration(found: Attachment, media: { duration?: number }): Attachment {
  return Number.isFinite(media.duration) && (media.duration ?? -1) >= 0 ? { ...found, durationSeconds: media.duration as number } : found;
}

/** A document is described by its MIME type: an image sent as a file is still an image. */
function documentKind(mimeType: string | undefined): Attachment['kind'] {
  const family = mimeType?.split('/')[0];
  return family === 'image' ? 'image' : family === 'audio' ? 'audio' : family === 'video' ? 'video' : 'file';
}

function stickerMime(sticker: NonNullable<Message['sticker']>): string {
  return sticker.is_animated ? 'application/x-tgsticker' : sticker.is_video ? 'video/webm' : 'image/webp';
}

export function attachmentsOf(message: Message): Attachment[] {
  const found: Attachment[] = [];
  // A photo may come with no size Parley can refer to (payloads.ts leaves those out): no attachment then.
  const servable = message.photo?.filter((size) => (size.file_size ?? 0) <= TELEGRAM_DOWNLOAD_LIMIT);
  const sizes = servable?.length ? servable : message.photo;
  const largest = sizes?.reduce<PhotoSize | undefined>(
    (best, size) => (best === undefined || (size.file_size ?? 0) >= (best.file_size ?? 0) ? size : best),
    undefined,
  );
  if (largest) found.push(attachment('image', largest, 'image/jpeg'));
  if (message.document && !message.animation) found.push(attachment(documentKind(message.document.mime_type), message.document));
  for (const video of [message.video, message.animation, message.video_note])
    if (video) found.push(withDuration(attachment('video', video), video));
  if (message.audio) found.push(withDuration(attachment('audio', message.audio), message.audio));
  // A voice note recorded in the app (OGG/Opus), shown to the model as "voice message, 0:42".
  if (message.voice) found.push({ ...withDuration(attachment('audio', message.voice), message.voice), voice: true });
  if (message.sticker)
    found.push({
      ...attachment('sticker', message.sticker, stickerMime(message.sticker)),
      ...(message.sticker.emoji ? { name: message.sticker.emoji } : {}),
    });
  return found;
}
