// Feishu message event → neutral Inbound. Pure. Reads text and rich-text (post) messages,
// resolves `@_user_N` placeholders to names, drops the bot's own mention (so "@Bot /stop" is the
// command "/stop") and decides whether the bot was addressed.
import { z } from 'zod';
import type { Attachment, Inbound } from '../../src/core/types.ts';
import { resourceRef } from './files.ts';
import { optionalText } from './lenient.ts';
import {
  MessageEventSchema,
  PostContentSchema,
  TextContentSchema,
  type FeishuMention,
  type FeishuMessageEvent,
  type PostBody,
  type PostElement,
} from './payloads.ts';
import { issuesOf } from './rejections.ts';

export interface BotIdentity {
  openId: string;
  name: string;
}

type ClassifiedMessage =
  | { kind: 'message'; inbound: Inbound; parentId?: string }
  | { kind: 'ignored'; reason: string }
  | { kind: 'malformed'; reason: string };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function postBody(raw: unknown): PostBody | undefined {
  const parsed = PostContentSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const value = parsed.data;
  if (Array.isArray((value as PostBody).content)) return value as PostBody;
  const locales = value as Record<string, PostBody>;
  return locales.zh_cn ?? locales.en_us ?? Object.values(locales)[0];
}

function postElementText(element: PostElement): string {
  switch (element.tag) {
    case 'text':
      return element.text ?? '';
    case 'a':
      return element.text && element.href && element.text !== element.href
        ? `[${element.text}](${element.href})`
        : (element.href ?? element.text ?? '');
    case 'at':
      // Received posts carry the placeholder key in user_id; it is resolved like text mentions.
      return element.user_id?.startsWith('@_') ? element.user_id : `@${element.user_name ?? element.user_id ?? ''}`;
    case 'code_block':
      return `\n\`\`\`\n${element.text ?? ''}\n\`\`\`\n`;
    case 'emotion':
      return '';
    default:
      return element.text ?? '';
  }
}

const FileContentSchema = z.looseObject({
  file_key: optionalText,
  image_key: optionalText,
  file_name: optionalText,
  /** Audio and media messages: milliseconds. */
  duration: z.number().nonnegative().optional().catch(undefined),
});

const ATTACHMENT_KINDS: Record<string, Attachment['kind']> = {
  image: 'image',
  file: 'file',
  audio: 'audio',
  media: 'video',
  sticker: 'sticker',
};

/**
 * The ref names the message and the resource (files.ts downloads it from
 * im/v1/messages/:message_id/resources/:key): images by image_key (type image), files, audio
 * and videos by file_key (type file). Stickers cannot be downloaded; their key stays bare.
 */
function attachmentOf(kind: Attachment['kind'], raw: unknown, messageId: string): Attachment | undefined {
  const parsed = FileContentSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const { file_key: fileKey, image_key: imageKey, file_name: name, duration } = parsed.data;
  const key = fileKey ?? imageKey;
  if (!key) return undefined;
  const ref = kind === 'sticker' ? key : resourceRef(messageId, fileKey ? 'file' : 'image', key);
  return {
    kind,
    ref,
    ...(name ? { name } : {}),
    ...(duration !== undefined ? { durationSeconds: duration / 1000 } : {}),
    // Feishu's `audio` message is a voice note recorded in the app.
    ...(kind === 'audio' ? { voice: true } : {}),
  };
}

interface MessageContent {
  /** The text with `@_user_N` placeholders still in it. */
  text: string;
  attachments: Attachment[];
}

/** What a message says and carries; undefined for kinds Parley does not read (cards, shared chats, ...). */
function contentOf(messageType: string, content: string, messageId: string): MessageContent | undefined {
  const json = parseJson(content);
  if (messageType === 'text') {
    const parsed = TextContentSchema.safeParse(json);
    return parsed.success ? { text: parsed.data.text, attachments: [] } : undefined;
  }
  if (messageType === 'post') {
    const body = postBody(json);
    if (!body) return undefined;
    const lines = body.content.map((line) => line.map(postElementText).join(''));
    const attachments = body.content.flat().flatMap((element) => {
      const kind = element.tag === 'img' ? 'image' : element.tag === 'media' ? 'video' : undefined;
      const attachment = kind ? attachmentOf(kind, element, messageId) : undefined;
      return attachment ? [attachment] : [];
    });
    return { text: [body.title, ...lines].filter((line) => line !== undefined && line !== '').join('\n'), attachments };
  }
  const kind = ATTACHMENT_KINDS[messageType];
  const attachment = kind ? attachmentOf(kind, json, messageId) : undefined;
  return attachment ? { text: '', attachments: [attachment] } : undefined;
}

/** Replaces `@_user_N` with `@Name`; the bot's own mention is removed. */
function resolveMentions(text: string, mentions: readonly FeishuMention[], botOpenId: string): { text: string; mentionsBot: boolean } {
  let mentionsBot = false;
  // Longest keys first, so @_user_1 does not eat the start of @_user_10.
  const sorted = [...mentions].sort((a, b) => b.key.length - a.key.length);
  let result = text;
  for (const mention of sorted) {
    const isBot = mention.id?.open_id === botOpenId;
    if (isBot && result.includes(mention.key)) mentionsBot = true;
    result = result.split(mention.key).join(isBot ? '' : `@${mention.name ?? mention.id?.open_id ?? 'someone'}`);
  }
  return { text: result.replace(/[ \t]{2,}/g, ' ').trim(), mentionsBot };
}

/**
 * `repliesToBot` is left false here: whether `parentId` is one of the bot's messages needs the
 * API, so the adapter settles it.
 */
export function classifyMessage(raw: unknown, bot: BotIdentity, channel: string, now: () => Date = () => new Date()): ClassifiedMessage {
  const parsed = MessageEventSchema.safeParse(raw);
  if (!parsed.success) return { kind: 'malformed', reason: issuesOf(parsed.error) };
  const event: FeishuMessageEvent = parsed.data;
  const { message, sender } = event;
  if (sender?.sender_type !== undefined && sender.sender_type !== 'user')
    return { kind: 'ignored', reason: `sender is a ${sender.sender_type}` };
  const senderId = sender?.sender_id?.open_id;
  // Parley knows people by open_id alone; a person's message without one cannot be answered.
  if (!senderId) return { kind: 'malformed', reason: 'sender.sender_id.open_id: missing' };
  if (senderId === bot.openId) return { kind: 'ignored', reason: 'my own message' };
  if (message.chat_type !== 'p2p' && message.chat_type !== 'group') return { kind: 'ignored', reason: `chat type ${message.chat_type}` };
  const content = contentOf(message.message_type, message.content, message.message_id);
  if (content === undefined)
    return {
      kind: 'ignored',
      reason: `a ${message.message_type} message (Parley reads text, post, images, files, audio, video and stickers)`,
    };
  const { text, mentionsBot } = resolveMentions(content.text, message.mentions, bot.openId);
  const inbound: Inbound = {
    channel,
    chatId: message.chat_id,
    chatType: message.chat_type === 'p2p' ? 'direct' : 'group',
    // A topic is named by its root message (replying to it posts in the topic); the root itself has no root_id.
    ...(message.thread_id ? { threadId: message.root_id ?? message.message_id } : {}),
    messageId: message.message_id,
    // Feishu re-pushes an event it thinks was not received, sometimes under a new event_id; the
    // message id is what identifies the delivery, and the core remembers it persistently.
    eventId: `msg:${message.message_id}`,
    sender: { id: senderId, displayName: senderId, isBot: false },
    text,
    attachments: content.attachments,
    mentionsBot,
    repliesToBot: false,
    ...(message.parent_id ? { replyToMessageId: message.parent_id } : {}),
    receivedAt: message.create_time !== undefined ? new Date(message.create_time) : now(),
  };
  return { kind: 'message', inbound, ...(message.parent_id ? { parentId: message.parent_id } : {}) };
}
