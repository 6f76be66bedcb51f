// Checks of the Bot API payload fields the adapter reads. grammY types updates with Telegram's own
// types (grammy/types) but trusts whatever arrives; these guards make sure the fields read have the
// types those declare (a forged webhook body, a proxy or a Bot API bug can send anything). They
// only check: the adapter reads the grammY-typed values afterwards.
import type { MessageEntity } from 'grammy/types';
import { z } from 'zod';

const int = z.number().int();

const UserGuard = z.object({
  id: int,
  is_bot: z.boolean(),
  first_name: z.string(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});

const ChatGuard = z.object({
  id: int,
  type: z.enum(['private', 'group', 'supergroup', 'channel']),
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

const FileGuard = z.object({
  file_id: z.string().min(1),
  file_size: int.nonnegative().optional(),
  file_name: z.string().optional(),
  mime_type: z.string().optional(),
});

const MessageGuard = z.object({
  message_id: int,
  from: UserGuard.optional(),
  chat: ChatGuard,
  date: UnixTimeGuard,
  message_thread_id: int.optional(),
  is_topic_message: z.boolean().optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  // Entities only decorate the text: one that does not parse is skipped (readableEntities), not the message.
  entities: z.array(z.unknown()).optional(),
  caption_entities: z.array(z.unknown()).optional(),
  reply_to_message: z.object({ message_id: int, from: UserGuard.optional() }).optional(),
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

const CallbackQueryGuard = z.object({
  id: z.string().min(1),
  from: UserGuard,
  /** Absent for buttons on inline-mode messages, which Parley never sends. */
  message: MessageGuard.optional(),
  data: z.string().optional(),
});

function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** What is wrong with a message the adapter is about to read, or undefined when nothing is. */
export function messageProblem(message: unknown): string | undefined {
  const checked = MessageGuard.safeParse(message);
  return checked.success ? undefined : issuesOf(checked.error);
}

/** The same for a callback query (its message included). */
export function callbackProblem(query: unknown): string | undefined {
  const checked = CallbackQueryGuard.safeParse(query);
  return checked.success ? undefined : issuesOf(checked.error);
}

/** The entities that have the declared shape; the others are left out. */
export function readableEntities(entities: readonly unknown[] | undefined): MessageEntity[] {
  return (entities ?? []).filter((entity): entity is MessageEntity => EntityGuard.safeParse(entity).success);
}
