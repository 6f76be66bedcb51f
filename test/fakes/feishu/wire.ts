// The JSON the fake Feishu reads from the bot: message cards, answers to pushed events, long-connection
// acks. Loose objects: the fake checks the fields it relies on and keeps the rest.
import { z } from 'zod';

const CardButtonSchema = z.looseObject({
  tag: z.string(),
  text: z.looseObject({ content: z.string() }),
  value: z.unknown(),
});

const CardElementSchema = z.looseObject({
  tag: z.string(),
  content: z.string().optional(),
  actions: z.array(CardButtonSchema).optional(),
});

export const CardSchema = z.looseObject({
  config: z.looseObject({ update_multi: z.boolean().optional() }).optional(),
  elements: z.array(CardElementSchema),
});

export type Card = z.infer<typeof CardSchema>;
export type CardButton = z.infer<typeof CardButtonSchema>;

export const TextContentSchema = z.object({ text: z.string() });

/** A post (rich text) as people send it: a title and lines of elements. */
interface PostContent {
  title: string;
  content: object[][];
}

/** Parsed message content: a card for interactive messages, `{ text }` or a post for the others. */
export type MessageContent = Card | z.infer<typeof TextContentSchema> | PostContent;

export function isCard(content: MessageContent): content is Card {
  return 'elements' in content;
}

/** The bot's answer to a pushed event (a card callback's toast and replacement card). */
export const EventAnswerSchema = z.looseObject({
  toast: z.looseObject({ type: z.string().optional(), content: z.string() }).optional(),
  card: z.looseObject({ type: z.unknown(), data: z.unknown() }).optional(),
});

export type EventAnswer = z.infer<typeof EventAnswerSchema>;

/** The SDK's ack of an event frame: an HTTP-like code and the answer, base64 JSON. */
export const FrameAckSchema = z.object({ code: z.number(), data: z.string().optional() });

/** A card callback's context: which message was clicked. */
export const ClickContextSchema = z.object({ context: z.object({ open_message_id: z.string() }) });

/** JSON text parsed, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
