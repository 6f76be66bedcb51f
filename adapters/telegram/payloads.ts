// Checks of the Bot API payload fields the adapter reads. grammY types updates with Telegram's own
// types (grammy/types) but trusts whatever arrives; these guards make sure the fields read have the
// types those declare (a forged webhook body, a proxy or a Bot API bug can send anything), and hand
// back the payload as the adapter reads it. Only what a message cannot do without rejects it (its
// id, its chat, a sender that is there but unreadable, a date no clock can show); an optional part
// that does not parse (a reply, a file) is left out and named in `dropped`; unknown fields are kept.
import type { CallbackQuery, Message, MessageEntity } from 'grammy/types';
import { z } from 'zod';

const int = z.number().int();

const UserGuard = z.looseObject({
  id: int,
  /** Always sent; were it missing, the sender is taken for a person. */
  is_bot: z.boolean().optional(),
  /** Sent, but empty for a user the Bot API server knows nothing about (telegram-bot-api's JsonUser). */
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  username: z.string().optional(),
  /** The user's app language (an IETF tag such as `en`, `zh-hans`), when they allow bots to see it. */
  language_code: z.string().optional().catch(undefined),
});

const ChatGuard = z.looseObject({
  id: int,
  type: z.enum(['private', 'group', 'supergroup', 'channel']),
  title: z.string().optional(),
  username: z.string().optional(),
  is_forum: z.boolean().optional(),
});

const EntityGuard = z
  .object({
    type: z.string(),
    offset: int.nonnegative(),
    length: int.positive(),
    user: UserGuard.optional(),
  })
  .refine((entity) => entity.type !== 'text_mention' || entity.user !== undefined, { error: 'a text_mention names its user' });

/** Unix seconds a JavaScript Date can hold; 0 is what Telegram sends for inaccessible messages. */
const UnixTimeGuard = int.min(0).max(8_640_000_000_000);

/** A file the adapter can refer to later. */
const FileGuard = z.looseObject({
  file_id: z.string().min(1),
  file_size: int.nonnegative().optional(),
  file_name: z.string().optional(),
  mime_type: z.string().optional(),
});

const MessageGuard = z.looseObject({
  message_id: int,
  from: UserGuard.optional(),
  /** Set when a message is sent on behalf of a chat (an anonymous admin, a channel); `from` is then a placeholder. */
  sender_chat: ChatGuard.optional(),
  chat: ChatGuard,
  /** Always sent; were it missing, the message is taken as received now. */
  date: UnixTimeGuard.optional(),
  message_thread_id: int.optional(),
  is_topic_message: z.boolean().optional(),
  is_automatic_forward: z.boolean().optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  // Entities only decorate the text: one that does not parse is skipped (readableEntities), not the message.
  entities: z.array(z.unknown()).optional(),
  caption_entities: z.array(z.unknown()).optional(),
  reply_to_message: z.looseObject({ message_id: int, from: UserGuard.optional() }).optional(),
  photo: z.array(FileGuard).optional(),
  document: FileGuard.optional(),
  video: FileGuard.optional(),
  animation: FileGuard.optional(),
  video_note: FileGuard.optional(),
  audio: FileGuard.optional(),
  voice: FileGuard.optional(),
  sticker: FileGuard.extend({
    emoji: z.string().optional(),
    is_animated: z.boolean().optional(),
    is_video: z.boolean().optional(),
  }).optional(),
});

/** Parts a message can do without: one that does not parse is left out, not the message. */
const DROPPABLE = new Set([
  'sender_chat',
  'reply_to_message',
  'photo',
  'document',
  'video',
  'animation',
  'video_note',
  'audio',
  'voice',
  'sticker',
]);

const CallbackQueryGuard = z.looseObject({
  id: z.string().min(1),
  from: UserGuard,
  /** Absent for buttons on inline-mode messages, which Parley never sends; checked with checkMessage. */
  message: z.unknown().optional(),
  data: z.string().optional(),
});

/**
 * The Bot API server writes an optional field only when it has a value and never writes null
 * (tdlib/telegram-bot-api, Client.cpp), so a null, wherever it is, is read as an absent field.
 * Object.fromEntries keeps a "__proto__" key an own property, as JSON.parse made it.
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, child]) => child !== null)
      .map(([key, child]) => [key, withoutNulls(child)]),
  );
}

function issuesOf(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

export type Checked<T> = { ok: true; value: T; dropped: string[] } | { ok: false; problem: string };

/** A message as the adapter reads it (`dropped`: the optional parts left out, and why), or what is wrong with it. */
export function checkMessage(raw: unknown): Checked<Message> {
  let candidate = withoutNulls(raw);
  let checked = MessageGuard.safeParse(candidate);
  let dropped: string[] = [];
  if (!checked.success && typeof candidate === 'object' && candidate !== null) {
    const fields = new Set(checked.error.issues.map((issue) => String(issue.path[0])));
    if ([...fields].every((field) => DROPPABLE.has(field))) {
      dropped = checked.error.issues.map((issue) => issuesOf([issue]));
      candidate = Object.fromEntries(Object.entries(candidate).filter(([key]) => !fields.has(key)));
      checked = MessageGuard.safeParse(candidate);
    }
  }
  // The guard checked every field the adapter reads, with the types grammY declares for them.
  return checked.success
    ? { ok: true, value: checked.data as unknown as Message, dropped }
    : { ok: false, problem: issuesOf(checked.error.issues) };
}

/** The same for a callback query (its message included). */
export function checkCallback(raw: unknown): Checked<CallbackQuery> {
  const checked = CallbackQueryGuard.safeParse(withoutNulls(raw));
  if (!checked.success) return { ok: false, problem: issuesOf(checked.error.issues) };
  const { message: rawMessage, ...query } = checked.data;
  if (rawMessage === undefined) return { ok: true, value: query as unknown as CallbackQuery, dropped: [] };
  const message = checkMessage(rawMessage);
  if (!message.ok) return { ok: false, problem: `message.${message.problem}` };
  return { ok: true, value: { ...query, message: message.value } as unknown as CallbackQuery, dropped: message.dropped };
}

/** The entities that have the declared shape; the others are left out. */
export function readableEntities(entities: readonly unknown[] | undefined): MessageEntity[] {
  return (entities ?? []).filter((entity): entity is MessageEntity => EntityGuard.safeParse(entity).success);
}
