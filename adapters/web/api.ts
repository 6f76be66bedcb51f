// The console's JSON + Server-Sent Events API. Who is asking comes from the browser's signed
// identity cookie (set by the app before these routes run), never from the request: a `user` in a
// body is refused and one in a query is ignored. Every query and body is validated with zod; the
// backend (the adapter) only ever sees well-formed people, chats and texts.
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { validator } from 'hono/validator';
import { z } from 'zod';
import { adminNav, localeOfRequest } from './admin/layout.ts';
import { HttpError, jsonError, MAX_BODY_BYTES, validate } from './http.ts';
import { chatFor, DisplayNameSchema, RoomSchema, type WebChat, type WebPerson } from './identity.ts';
import type { EntryView } from './transcript.ts';
import type { UploadStore } from './uploads.ts';

const MAX_MESSAGE_CHARS = 8_000;
const MAX_ATTACHMENTS = 8;
/** Bytes a button payload may take (the channel's capabilities.maxButtonPayload). */
export const MAX_BUTTON_PAYLOAD_BYTES = 256;

/** What the API needs from the adapter. */
export interface ConsoleBackend {
  readonly botName: string;
  history(chat: WebChat, viewer: string): Promise<EntryView[]>;
  /** Opens the viewer's event stream of the chat (429/503 when over a cap). */
  events(c: Context, chat: WebChat, viewer: string): Response;
  /** `uploads`: ids from POST /api/uploads that this message carries. */
  post(chat: WebChat, person: WebPerson, text: string, uploads?: string[]): Promise<{ id: string }>;
  /** Presses a button; resolves with the toast meant for the presser alone. */
  press(chat: WebChat, person: WebPerson, messageId: string, payload: string): Promise<string | undefined>;
  isAdmin(viewer: string): boolean;
  /** The page's own words in the language for this Accept-Language header (GET /api/texts). */
  texts(acceptLanguage: string | undefined): { locale: string; texts: Record<string, string> };
  /** Where dropped and pasted files go (upload-api.ts). */
  readonly uploads?: UploadStore;
}

export type ConsoleEnv = { Variables: { viewer: string } };

const ChatQuerySchema = z.object({ room: RoomSchema.optional() });

const PersonFields = {
  name: DisplayNameSchema,
  room: RoomSchema.optional(),
  user: z.never({ error: "not accepted: the console knows who you are from this browser's cookie" }).optional(),
};

const MessageBodySchema = z
  .strictObject({
    ...PersonFields,
    text: z.string().refine((text) => text.length <= MAX_MESSAGE_CHARS, { error: `expects at most ${MAX_MESSAGE_CHARS} characters` }),
    attachments: z
      .array(z.string().regex(/^[0-9a-f]{32}$/, { error: 'expects upload ids from POST /api/uploads' }))
      .max(MAX_ATTACHMENTS, { error: `expects at most ${MAX_ATTACHMENTS} files` })
      .optional(),
  })
  .refine((body) => body.text.trim().length > 0 || (body.attachments?.length ?? 0) > 0, {
    error: 'expects some text',
    path: ['text'],
  });

const ActionBodySchema = z.strictObject({
  ...PersonFields,
  messageId: z.string().min(1).max(100),
  payload: z
    .string()
    .min(1)
    .refine((payload) => Buffer.byteLength(payload) <= MAX_BUTTON_PAYLOAD_BYTES, {
      error: `expects at most ${MAX_BUTTON_PAYLOAD_BYTES} bytes`,
    }),
});

// Requiring JSON also means a cross-site form or "simple" request cannot post here without a CORS preflight.
const requireJson: MiddlewareHandler = async (c, next) => {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new HttpError(415, 'expects Content-Type: application/json');
  await next();
};

const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => jsonError(c, 413, `request body is larger than ${MAX_BODY_BYTES} bytes`, { connection: 'close' }),
});

function jsonBody<S extends z.ZodType>(schema: S) {
  return [requireJson, limitBody, validator('json', (value) => validate(schema, value, 'request body'))] as const;
}

const chatQuery = validator('query', (value) => validate(ChatQuerySchema, value, 'query'));

function methodNotAllowed(allowed: string) {
  return (c: Context) =>
    jsonError(c, 405, `method not allowed here (use ${allowed})`, { allow: allowed === 'GET' ? 'GET, HEAD' : allowed });
}

/** Who is writing or pressing: the browser's identity, the tab's name, the browser's languages. */
function personOf(c: Context<ConsoleEnv>, name: string): WebPerson {
  const languages = c.req.header('accept-language')?.trim();
  return { id: c.get('viewer'), name, ...(languages ? { locale: languages.slice(0, 200) } : {}) };
}

export function registerApi(app: Hono<ConsoleEnv>, backend: ConsoleBackend): void {
  app.get('/api/texts', (c) =>
    c.json(backend.texts(c.req.header('accept-language')), 200, { 'cache-control': 'no-store', vary: 'Accept-Language' }),
  );
  app.all('/api/texts', methodNotAllowed('GET'));

  app.get('/api/chat', chatQuery, async (c) => {
    const { room } = c.req.valid('query');
    const viewer = c.get('viewer');
    return c.json(
      {
        botName: backend.botName,
        chat: room ? { type: 'group', room } : { type: 'direct' },
        you: { id: viewer, admin: backend.isAdmin(viewer) },
        // The admin sections, for the header (admins only).
        ...(backend.isAdmin(viewer) ? { adminNav: adminNav(localeOfRequest(c)) } : {}),
        entries: await backend.history(chatFor(viewer, room), viewer),
      },
      200,
      { 'cache-control': 'no-store' },
    );
  });
  app.all('/api/chat', methodNotAllowed('GET'));

  app.get('/api/events', chatQuery, (c) => {
    // HEAD would open a stream nobody reads (and nobody closes).
    if (c.req.method === 'HEAD') return c.body(null, 200, { 'content-type': 'text/event-stream' });
    const { room } = c.req.valid('query');
    const viewer = c.get('viewer');
    return backend.events(c, chatFor(viewer, room), viewer);
  });
  app.all('/api/events', methodNotAllowed('GET'));

  app.post('/api/messages', ...jsonBody(MessageBodySchema), async (c) => {
    const body = c.req.valid('json');
    const viewer = c.get('viewer');
    const entry = await backend.post(chatFor(viewer, body.room), personOf(c, body.name), body.text, body.attachments);
    return c.json({ id: entry.id }, 202);
  });
  app.all('/api/messages', methodNotAllowed('POST'));

  app.post('/api/actions', ...jsonBody(ActionBodySchema), async (c) => {
    const body = c.req.valid('json');
    const viewer = c.get('viewer');
    const toast = await backend.press(chatFor(viewer, body.room), personOf(c, body.name), body.messageId, body.payload);
    return c.json({ toast: toast ?? null }, 200);
  });
  app.all('/api/actions', methodNotAllowed('POST'));
}
