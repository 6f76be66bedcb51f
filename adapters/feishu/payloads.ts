// The parts of Feishu's schema 2.0 events Parley reads, as the SDK's EventDispatcher hands them
// to a handler (header and event fields flattened into one object). Validated with zod at the edge:
// objects are loose (Feishu adds fields), optional fields read null and "" as absent (see
// lenient.ts), and people are known by `open_id` alone (`user_id` needs a scope the app may lack).
import { z } from 'zod';
import { listOf, optional, optionalMillis, optionalText, requiredText } from './lenient.ts';

const UserIdSchema = z.looseObject({ open_id: optionalText });

const MentionSchema = z.looseObject({
  key: requiredText,
  id: optional(UserIdSchema),
  name: optionalText,
});
export type FeishuMention = z.output<typeof MentionSchema>;

export const MessageEventSchema = z.looseObject({
  event_id: requiredText,
  sender: optional(z.looseObject({ sender_id: optional(UserIdSchema), sender_type: optionalText })),
  message: z.looseObject({
    message_id: requiredText,
    parent_id: optionalText,
    root_id: optionalText,
    thread_id: optionalText,
    create_time: optionalMillis,
    chat_id: requiredText,
    chat_type: requiredText,
    message_type: requiredText,
    content: z.string(),
    mentions: listOf(MentionSchema),
  }),
});
export type FeishuMessageEvent = z.output<typeof MessageEventSchema>;

function jsonOrText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** What Parley puts into a button's `value`: only the opaque token (some clients hand it back as a JSON string). */
const ButtonValueSchema = z.preprocess(jsonOrText, z.looseObject({ p: z.string().min(1).max(256) }));

const ClickPlaceSchema = z.looseObject({ open_message_id: optionalText, open_chat_id: optionalText });

/** A card click, read down to what the core needs: who clicked which card in which chat, and the button's token. */
export const CardActionEventSchema = z
  .looseObject({
    event_id: optionalText,
    operator: z.looseObject({ open_id: requiredText, name: optionalText }),
    action: z.looseObject({ value: ButtonValueSchema }),
    context: optional(ClickPlaceSchema),
    // Where the SDK's own normaliser (normalizeCardAction) also looks, for older callback shapes.
    open_message_id: optionalText,
    open_chat_id: optionalText,
  })
  .superRefine((event, ctx) => {
    for (const field of ['open_message_id', 'open_chat_id'] as const)
      if (!(event.context?.[field] ?? event[field]))
        ctx.addIssue({ code: 'custom', path: ['context', field], message: 'missing (neither in context nor at the top level)' });
  })
  .transform((event) => ({
    eventId: event.event_id,
    openId: event.operator.open_id,
    name: event.operator.name,
    messageId: (event.context?.open_message_id ?? event.open_message_id)!,
    chatId: (event.context?.open_chat_id ?? event.open_chat_id)!,
    payload: event.action.value.p,
  }));

export const TextContentSchema = z.object({ text: z.string() });

const PostElementSchema = z.looseObject({
  tag: requiredText,
  text: optionalText,
  href: optionalText,
  user_id: optionalText,
  user_name: optionalText,
});
// `content` must be a list (it tells a body from a record of locales); a line that is not is empty.
const PostBodySchema = z.object({ title: optionalText, content: z.array(listOf(PostElementSchema)) });
/** A received `post` is either the body itself or the body per locale (`zh_cn`, `en_us`, ...). */
export const PostContentSchema = z.union([PostBodySchema, z.record(z.string(), PostBodySchema)]);
export type PostElement = z.output<typeof PostElementSchema>;
export type PostBody = z.output<typeof PostBodySchema>;
