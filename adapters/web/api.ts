// The console's JSON + Server-Sent Events API. Every query and body is validated here; the
// backend (the adapter) only ever sees well-formed people, chats and texts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { HttpError, readJson, sendJson, validate } from './http.ts';
import { chatFor, DisplayNameSchema, RoomSchema, UserIdSchema, type WebChat, type WebPerson } from './identity.ts';
import type { TranscriptEntry } from './transcript.ts';

export const MAX_MESSAGE_CHARS = 8_000;

/** What the API needs from the adapter. */
export interface ConsoleBackend {
  readonly botName: string;
  history(chat: WebChat): TranscriptEntry[];
  post(chat: WebChat, person: WebPerson, text: string): Promise<TranscriptEntry>;
  /** Presses a button; resolves with the toast meant for the presser alone. */
  press(chat: WebChat, person: WebPerson, messageId: string, payload: string): Promise<string | undefined>;
  subscribe(chat: WebChat, req: IncomingMessage, res: ServerResponse): void;
}

const ChatQuerySchema = z.object({ user: UserIdSchema, room: RoomSchema.optional() });

const PersonFields = { user: UserIdSchema, name: DisplayNameSchema, room: RoomSchema.optional() };

const MessageBodySchema = z.strictObject({
  ...PersonFields,
  text: z
    .string()
    .refine((text) => text.trim().length > 0, { error: 'expects some text' })
    .refine((text) => text.length <= MAX_MESSAGE_CHARS, { error: `expects at most ${MAX_MESSAGE_CHARS} characters` }),
});

const ActionBodySchema = z.strictObject({
  ...PersonFields,
  messageId: z.string().min(1).max(100),
  payload: z.string().min(1).max(64),
});

function chatOfQuery(url: URL): WebChat {
  const query = validate(ChatQuerySchema, Object.fromEntries(url.searchParams), 'query');
  return chatFor(query.user, query.room);
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

export function apiRoutes(backend: ConsoleBackend): Record<string, Partial<Record<'GET' | 'POST', Handler>>> {
  return {
    '/api/chat': {
      GET: async (_req, res, url) => {
        const chat = chatOfQuery(url);
        sendJson(res, 200, { botName: backend.botName, chat, entries: backend.history(chat) });
      },
    },
    '/api/events': {
      GET: async (req, res, url) => {
        backend.subscribe(chatOfQuery(url), req, res);
      },
    },
    '/api/messages': {
      POST: async (req, res) => {
        const body = await readJson(req, MessageBodySchema);
        const entry = await backend.post(chatFor(body.user, body.room), { id: body.user, name: body.name }, body.text);
        sendJson(res, 202, { id: entry.id });
      },
    },
    '/api/actions': {
      POST: async (req, res) => {
        const body = await readJson(req, ActionBodySchema);
        const toast = await backend.press(chatFor(body.user, body.room), { id: body.user, name: body.name }, body.messageId, body.payload);
        sendJson(res, 200, { toast: toast ?? null });
      },
    },
  };
}

export function methodNotAllowed(allowed: string[]): HttpError {
  return new HttpError(405, `method not allowed here (use ${allowed.join(' or ')})`, { allow: allowed.join(', ') });
}
