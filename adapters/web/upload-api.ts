// The console's upload routes. POST /api/uploads takes the raw file as application/octet-stream
// (a type no cross-site form can send without a CORS preflight, which this server never grants),
// its name and type in X-File-Name / X-File-Type; the cap is checked against Content-Length first
// and then while streaming. GET /api/uploads/:id shows an image back to the people of its chat,
// only when its bytes are PNG, JPEG, GIF or WebP (labelled by those bytes, never sniffed by the
// browser: X-Content-Type-Options and the console's CSP come with every answer).
import type { Context, Hono } from 'hono';
import { stream } from 'hono/streaming';
import { z } from 'zod';
import type { ConsoleEnv } from './api.ts';
import { HttpError, jsonError, validate } from './http.ts';
import { UploadTooLarge, type UploadMeta, type UploadStore, viewOfUpload } from './uploads.ts';

const MimeSchema = z
  .string()
  .max(100)
  .regex(/^[a-z0-9][a-z0-9.+-]*\/[a-z0-9][a-z0-9.+-]*$/i, { error: 'expects a media type such as image/png' });
const NameSchema = z.string().trim().min(1).max(200);

function declaredName(header: string | undefined): string {
  let name = 'upload';
  try {
    name = header ? decodeURIComponent(header) : name;
  } catch {
    throw new HttpError(400, 'X-File-Name: expects the file name, percent-encoded');
  }
  // A name is only shown; path separators and control characters are dropped.
  return validate(NameSchema, name.replace(/[\p{Cc}/\\]/gu, '_'), 'X-File-Name');
}

/** Which image the first bytes are (the page is shown nothing else). */
function imageType(head: Uint8Array): string | undefined {
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && head[8] === 0x57 && head[9] === 0x45 && head[10] === 0x42 && head[11] === 0x50) return 'image/webp';
  return undefined;
}

async function firstBytes(store: UploadStore, meta: UploadMeta): Promise<Uint8Array> {
  const reader = store.read(meta).getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return value ?? new Uint8Array();
}

/** A room is shared by whoever opens it; a direct chat is its owner's alone. */
function mayView(meta: UploadMeta, viewer: string): boolean {
  if (meta.owner === viewer) return true;
  return meta.chatId?.startsWith('room-') === true;
}

export function registerUploadApi(app: Hono<ConsoleEnv>, store: UploadStore): void {
  app.post('/api/uploads', async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/octet-stream') throw new HttpError(415, 'expects Content-Type: application/octet-stream');
    const name = declaredName(c.req.header('x-file-name'));
    const mimeType = validate(MimeSchema, c.req.header('x-file-type') ?? 'application/octet-stream', 'X-File-Type').toLowerCase();
    const tooLarge = () =>
      jsonError(c, 413, `the file is larger than the ${Number((store.maxBytes / 1_000_000).toFixed(2))} MB limit`, { connection: 'close' });
    const length = Number(c.req.header('content-length'));
    if (Number.isFinite(length) && length > store.maxBytes) return tooLarge();
    const body = c.req.raw.body;
    if (!body) throw new HttpError(400, 'expects the file as the request body');
    try {
      const meta = await store.receive(c.get('viewer'), body, { name, mimeType });
      if (meta.size === 0) throw new HttpError(400, 'the file is empty');
      return c.json(viewOfUpload(meta), 201, { 'cache-control': 'no-store' });
    } catch (error) {
      if (error instanceof UploadTooLarge) return tooLarge();
      throw error;
    }
  });
  app.all('/api/uploads', (c: Context) => jsonError(c, 405, 'method not allowed here (use POST)', { allow: 'POST' }));

  app.get('/api/uploads/:id', async (c) => {
    const meta = await store.get(c.req.param('id'));
    if (!meta || !mayView(meta, c.get('viewer'))) throw new HttpError(404, 'no such upload');
    const image = imageType(await firstBytes(store, meta));
    if (!image) throw new HttpError(415, 'only images are shown back; the file itself went to the bot');
    c.header('content-type', image);
    c.header('content-length', String(meta.size));
    c.header('cache-control', 'private, max-age=3600');
    c.header('content-disposition', 'inline');
    return stream(c, async (out) => {
      await out.pipe(store.read(meta));
    });
  });
}
