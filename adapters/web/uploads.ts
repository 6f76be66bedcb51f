// Files people drop or paste into the console: streamed to disk under the data folder
// (web-uploads/<id>, with <id>.json beside it), refused the moment they pass the cap (never held
// whole in memory), owned by the browser that sent them until a message carries them into a chat,
// and deleted after a day, or when their owner resets the chat they went into (/reset). The core
// downloads them through fetchAttachment (ref `upload:<id>`).
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { type Attachment, type AttachmentDownload, AttachmentFetchError } from '../../src/core/types.ts';

/** Uploads (and their files) older than this are deleted. */
const MAX_AGE_MS = 24 * 60 * 60 * 1000;
const ID = /^[0-9a-f]{32}$/;
const REF_PREFIX = 'upload:';

const UploadMetaSchema = z.object({
  id: z.string().regex(ID),
  owner: z.string().min(1),
  name: z.string().min(1).max(200),
  mimeType: z.string().min(1).max(200),
  size: z.number().int().nonnegative(),
  /** The chat a message carried it into; until then only its owner may use it. */
  chatId: z.string().optional(),
  at: z.number(),
});
export type UploadMeta = z.infer<typeof UploadMetaSchema>;

export class UploadTooLarge extends Error {}

/** An upload as the transcript shows it (no owner, no path). */
export interface AttachmentView {
  id: string;
  name: string;
  mimeType: string;
  size: number;
  kind: Attachment['kind'];
}

function kindOf(mimeType: string): Attachment['kind'] {
  const family = mimeType.split('/')[0];
  return family === 'image' ? 'image' : family === 'audio' ? 'audio' : family === 'video' ? 'video' : 'file';
}

export function viewOfUpload(meta: UploadMeta): AttachmentView {
  return { id: meta.id, name: meta.name, mimeType: meta.mimeType, size: meta.size, kind: kindOf(meta.mimeType) };
}

export function attachmentOfUpload(meta: UploadMeta): Attachment {
  return { kind: kindOf(meta.mimeType), ref: `${REF_PREFIX}${meta.id}`, name: meta.name, mimeType: meta.mimeType, size: meta.size };
}

export class UploadStore {
  readonly #dir: string;
  readonly maxBytes: number;
  readonly #now: () => number;

  constructor(options: { dir: string; maxBytes: number; now?: () => number }) {
    this.#dir = options.dir;
    this.maxBytes = options.maxBytes;
    this.#now = options.now ?? Date.now;
  }

  #file(id: string): string {
    return join(this.#dir, id);
  }

  async #writeMeta(meta: UploadMeta): Promise<void> {
    await writeFile(`${this.#file(meta.id)}.json`, JSON.stringify(meta), { mode: 0o600 });
  }

  /** Streams `body` to disk; UploadTooLarge (and nothing kept) once it passes the cap. */
  async receive(owner: string, body: ReadableStream<Uint8Array>, declared: { name: string; mimeType: string }): Promise<UploadMeta> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    await this.prune();
    const id = randomBytes(16).toString('hex');
    let size = 0;
    const cap = this.maxBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > cap) done(new UploadTooLarge(`the file is larger than ${cap} bytes`));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(
        Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>),
        counter,
        createWriteStream(this.#file(id), { mode: 0o600 }),
      );
    } catch (error) {
      await rm(this.#file(id), { force: true });
      throw error;
    }
    const meta: UploadMeta = { id, owner, name: declared.name, mimeType: declared.mimeType, size, at: this.#now() };
    await this.#writeMeta(meta);
    return meta;
  }

  async get(id: string): Promise<UploadMeta | undefined> {
    if (!ID.test(id)) return undefined;
    try {
      const parsed = UploadMetaSchema.safeParse(JSON.parse(await readFile(`${this.#file(id)}.json`, 'utf8')));
      return parsed.success && this.#now() - parsed.data.at <= MAX_AGE_MS ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** Hands the owner's uploads to a chat (a message now carries them); undefined when one is not theirs or gone. */
  async claim(owner: string, ids: readonly string[], chatId: string): Promise<UploadMeta[] | undefined> {
    const metas: UploadMeta[] = [];
    for (const id of ids) {
      const meta = await this.get(id);
      if (!meta || meta.owner !== owner || (meta.chatId !== undefined && meta.chatId !== chatId)) return undefined;
      metas.push(meta);
    }
    for (const meta of metas) {
      meta.chatId = chatId;
      await this.#writeMeta(meta);
    }
    return metas;
  }

  /** The bytes for fetchAttachment. */
  async open(attachment: Attachment): Promise<AttachmentDownload> {
    const id = attachment.ref.startsWith(REF_PREFIX) ? attachment.ref.slice(REF_PREFIX.length) : '';
    const meta = await this.get(id);
    if (!meta) throw new AttachmentFetchError('not-found', 'the uploaded file is no longer kept (uploads are deleted after a day)');
    const size = (await stat(this.#file(id)).catch(() => undefined))?.size;
    if (size === undefined) throw new AttachmentFetchError('not-found', 'the uploaded file is no longer kept');
    return {
      body: Readable.toWeb(createReadStream(this.#file(id))) as ReadableStream<Uint8Array>,
      contentType: meta.mimeType,
      size,
    };
  }

  /** A stream of the file for the page (after the caller checked who may see it). */
  read(meta: UploadMeta): ReadableStream<Uint8Array> {
    return Readable.toWeb(createReadStream(this.#file(meta.id))) as ReadableStream<Uint8Array>;
  }

  /** Deletes uploads older than a day. */
  /** `owner`'s files carried into `chatId` are deleted (they reset that conversation). */
  async forget(owner: string, chatId: string): Promise<void> {
    const names = await readdir(this.#dir).catch(() => [] as string[]);
    for (const name of names) {
      const id = name.replace(/\.json$/, '');
      if (name === id || !ID.test(id)) continue;
      const meta = await this.get(id);
      if (meta?.owner !== owner || meta.chatId !== chatId) continue;
      await rm(this.#file(id), { force: true });
      await rm(join(this.#dir, name), { force: true });
    }
  }

  async prune(): Promise<void> {
    const names = await readdir(this.#dir).catch(() => [] as string[]);
    for (const name of names) {
      const id = name.replace(/\.json$/, '');
      if (!ID.test(id)) continue;
      const info = await stat(join(this.#dir, name)).catch(() => undefined);
      if (info && this.#now() - info.mtimeMs > MAX_AGE_MS) await rm(join(this.#dir, name), { force: true });
    }
  }
}
