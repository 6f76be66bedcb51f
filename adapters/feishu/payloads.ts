// The parts of Feishu's schema 2.0 events Parley reads, as the SDK's EventDispatcher hands them
// to a handler (header and event fields flattened into one object). Validated with zod at the edge.
import { z } from 'zod';

const UserIdSchema = z.object({ open_id: z.string().optional(), user_id: z.string().optional(), union_id: z.string().optional() });

const MentionSchema = z.object({
  key: z.string(),
  id: UserIdSchema.optional(),
  name: z.string().optional(),
});
export type FeishuMention = z.infer<typeof MentionSchema>;

export const MessageEventSchema = z.object({
  event_id: z.string().min(1),
  sender: z.object({
    sender_id: UserIdSchema.optional(),
    sender_type: z.string().optional(),
  }),
  message: z.object({
    message_id: z.string().min(1),
    parent_id: z.string().optional(),
    root_id: z.string().optional(),
    thread_id: z.string().optional(),
    create_time: z.string().optional(),
    chat_id: z.string().min(1),
    chat_type: z.string(),
    message_type: z.string(),
    content: z.string(),
    mentions: z.array(MentionSchema).optional(),
  }),
});
export type FeishuMessageEvent = z.infer<typeof MessageEventSchema>;

export const CardActionEventSchema = z.object({
  event_id: z.string().optional(),
  operator: z.object({ open_id: z.string().min(1), user_id: z.string().optional(), name: z.string().optional() }),
  action: z.object({ value: z.unknown().optional(), tag: z.string().optional() }),
  context: z.object({ open_message_id: z.string().min(1), open_chat_id: z.string().min(1) }),
});

/** What Parley puts into a button's `value`: only the opaque token. */
export const ButtonValueSchema = z.object({ p: z.string().min(1).max(256) });

export const TextContentSchema = z.object({ text: z.string() });

const PostElementSchema = z.looseObject({
  tag: z.string(),
  text: z.string().optional(),
  href: z.string().optional(),
  user_id: z.string().optional(),
  user_name: z.string().optional(),
});
const PostBodySchema = z.object({ title: z.string().optional(), content: z.array(z.array(PostElementSchema)) });
/** A received `post` is either the body itself or the body per locale (`zh_cn`, `en_us`, ...). */
export const PostContentSchema = z.union([PostBodySchema, z.record(z.string(), PostBodySchema)]);
export type PostElement = z.infer<typeof PostElementSchema>;
export type PostBody = z.infer<typeof PostBodySchema>;
