// Files on the fake Bot API, served like Telegram serves them (core.telegram.org/bots/api#getfile):
// `getFile` answers a File object with a `file_path`, and the bytes come from
// `<apiRoot>/file/bot<token>/<file_path>`; a path is valid for at least an hour. A file over 20 MB
// makes getFile fail with 400 "Bad Request: file is too big" (the cloud Bot API's download limit);
// an unknown file_id with 400 "Bad Request: invalid file_id"; an unknown path answers 404 with
// `{"ok":false,"error_code":404,"description":"Not Found"}`. Voice notes are stored as
// `voice/file_N.oga` and photos as `photos/file_N.jpg`, as Telegram names them.
import sharp from 'sharp';
import { ApiFailure } from './methods.ts';
import { errors } from './types.ts';

/** The cloud Bot API serves files up to 20 MB through getFile. */
const BOT_API_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

interface StoredFile {
  fileId: string;
  uniqueId: string;
  size: number;
  path: string;
  /** Absent for a file only described (one too big to serve). */
  bytes?: Buffer;
}

export interface FileSource {
  bytes: Buffer;
  name?: string;
  mimeType?: string;
}

export interface TgFileRef {
  file_id: string;
  file_unique_id: string;
  file_size: number;
}

export type TgPhotoSize = TgFileRef & { width: number; height: number };

const FOLDERS = { photo: ['photos', 'jpg'], voice: ['voice', 'oga'], document: ['documents', ''], audio: ['music', 'mp3'] } as const;

export class TelegramFiles {
  readonly #byId = new Map<string, StoredFile>();
  readonly #byPath = new Map<string, StoredFile>();
  #next = 1;
  /** file_ids asked of getFile, in order. */
  readonly asked: string[] = [];

  #add(kind: keyof typeof FOLDERS, size: number, bytes: Buffer | undefined, name?: string): StoredFile {
    const n = this.#next++;
    const [folder, extension] = FOLDERS[kind];
    const ext = extension || /\.([A-Za-z0-9]{1,8})$/.exec(name ?? '')?.[1] || 'bin';
    // Real file_ids are long base64url strings; unique ids are shorter and stable across bots.
    const stored: StoredFile = {
      fileId: `BQACAgIAAxkBAAI${kind.toUpperCase()}${String(n).padStart(4, '0')}Zm9vYmFy`,
      uniqueId: `AgAD${String(n).padStart(4, '0')}`,
      size,
      path: `${folder}/file_${n}.${ext}`,
      ...(bytes ? { bytes } : {}),
    };
    this.#byId.set(stored.fileId, stored);
    return stored;
  }

  #ref(file: StoredFile): TgFileRef {
    return { file_id: file.fileId, file_unique_id: file.uniqueId, file_size: file.size };
  }

  /** A photo's sizes as Telegram sends them: a 90-px thumbnail, then the picture as a JPEG of at most 2560 px a side. */
  async photo(source: FileSource): Promise<TgPhotoSize[]> {
    const jpeg = await sharp(source.bytes)
      .resize({ width: 2560, height: 2560, fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 87 })
      .toBuffer();
    const meta = await sharp(jpeg).metadata();
    const thumb = await sharp(jpeg).resize({ width: 90 }).jpeg().toBuffer();
    const thumbMeta = await sharp(thumb).metadata();
    const small = this.#add('photo', thumb.length, thumb);
    const full = this.#add('photo', jpeg.length, jpeg);
    return [
      { ...this.#ref(small), width: thumbMeta.width ?? 90, height: thumbMeta.height ?? 0 },
      { ...this.#ref(full), width: meta.width ?? 0, height: meta.height ?? 0 },
    ];
  }

  /** A voice note (Telegram's Voice: OGG/Opus, `audio/ogg`). */
  voice(source: FileSource, duration: number): TgFileRef & { duration: number; mime_type: string } {
    return { ...this.#ref(this.#add('voice', source.bytes.length, source.bytes)), duration, mime_type: 'audio/ogg' };
  }

  document(source: FileSource): TgFileRef & { file_name?: string; mime_type?: string } {
    return {
      ...this.#ref(this.#add('document', source.bytes.length, source.bytes, source.name)),
      ...(source.name ? { file_name: source.name } : {}),
      ...(source.mimeType ? { mime_type: source.mimeType } : {}),
    };
  }

  /** A document of `size` bytes with no content here: getFile refuses it when over 20 MB. */
  bigDocument(name: string, mimeType: string, size: number): TgFileRef & { file_name: string; mime_type: string } {
    return { ...this.#ref(this.#add('document', size, undefined, name)), file_name: name, mime_type: mimeType };
  }

  /** The file is deleted from Telegram's servers: its id and its paths are gone. */
  forget(fileId: string): void {
    const file = this.#byId.get(fileId);
    this.#byId.delete(fileId);
    if (file) this.#byPath.delete(file.path);
  }

  /** Injected fault: getFile reports this file_path (a broken or hostile API server). */
  reportPath(fileId: string, path: string): void {
    const file = this.#byId.get(fileId);
    if (file) this.#byId.set(fileId, { ...file, path });
  }

  /** getFile still answers, but the download path answers 404 (the file server lost it). */
  loseBytes(fileId: string): void {
    const file = this.#byId.get(fileId);
    if (file) this.#byId.set(fileId, { ...file, path: `lost/${file.path}` });
  }

  getFile(params: Record<string, unknown>): TgFileRef & { file_path?: string } {
    const fileId = typeof params.file_id === 'string' ? params.file_id : '';
    this.asked.push(fileId);
    const file = this.#byId.get(fileId);
    if (!file) throw new ApiFailure(errors.badRequest('invalid file_id'));
    if (file.size > BOT_API_DOWNLOAD_LIMIT || !file.bytes) throw new ApiFailure(errors.badRequest('file is too big'));
    if (!file.path.startsWith('lost/')) this.#byPath.set(file.path, file);
    return { ...this.#ref(file), file_path: file.path };
  }

  /** The bytes behind a download path (after getFile issued it), or undefined (404). */
  download(path: string): Buffer | undefined {
    return this.#byPath.get(path)?.bytes;
  }
}
