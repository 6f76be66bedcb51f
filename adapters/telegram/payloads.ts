// zod schemas for the parts of Bot API payloads the adapter reads. Everything from Telegram is
// checked against these before use; unknown fields are ignored.
import { z } from 'zod';

export const UserSchema = z.object({
  id: z.number().int(),
  is_bot: z.boolean(),
  first_name: z.string(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});
export type TelegramUser = z.infer<typeof UserSchema>;

export const ChatSchema = z.object({
  id: z.number().int(),
  type: z.enum(['private', 'group', 'supergroup', 'channel']),
  title: z.string().optional(),
  is_forum: z.boolean().optional(),
});
export type TelegramChat = z.infer<typeof ChatSchema>;

export const EntitySchema = z.object({
  type: z.string(),
  offset: z.number().int().nonnegative(),
  length: z.number().int().positive(),
  user: UserSchema.optional(),
});
export type TelegramEntity = z.infer<typeof EntitySchema>;

/** The message a message replies to (only what we need from it). */
const RepliedMessageSchema = z.object({
  message_id: z.number().int(),
  from: UserSchema.optional(),
  /** Present on the service message that opened a forum topic. */
  forum_topic_created: z.unknown().optional(),
});

/** Unix seconds a JavaScript Date can hold; 0 is what Telegram sends for inaccessible messages. */
const UnixTimeSchema = z.number().int().min(0).max(8_640_000_000_000);

export const MessageSchema = z.object({
  message_id: z.number().int(),
  from: UserSchema.optional(),
  chat: ChatSchema,
  date: UnixTimeSchema,
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  text: z.string().optional(),
  /** Entities only decorate the text: one that does not parse is left out, the message is kept. */
  entities: z
    .array(z.unknown())
    .optional()
    .transform((list) => list?.flatMap((raw) => EntitySchema.safeParse(raw).data ?? [])),
  reply_to_message: RepliedMessageSchema.optional(),
});
export type TelegramMessage = z.infer<typeof MessageSchema>;

export const CallbackQuerySchema = z.object({
  id: z.string().min(1),
  from: UserSchema,
  /** Absent for buttons on inline-mode messages, which Parley never sends. */
  message: MessageSchema.optional(),
  data: z.string().optional(),
});
export type TelegramCallbackQuery = z.infer<typeof CallbackQuerySchema>;

/** The envelope: each kind is parsed separately so a bad part is reported precisely. */
export const UpdateEnvelopeSchema = z.object({
  update_id: z.number().int().nonnegative(),
  message: z.unknown().optional(),
  edited_message: z.unknown().optional(),
  callback_query: z.unknown().optional(),
});
