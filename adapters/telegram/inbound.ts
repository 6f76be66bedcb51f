// Telegram message / callback query (grammY's types) → neutral Inbound / Action. Pure: the adapter
// logs the outcome and talks to the core. Decides what the bot sees: messages from people in
// private chats, groups, supergroups and forum topics (and from chats writing as themselves: an
// anonymous admin, a channel posting in a group) — text, and photos, files, voice, video and
// stickers with or without a caption; not service messages, other bots, channels, commands for
// other bots, or anything outside the allowlists. Each payload is checked and read through
// payloads.ts first: grammY passes on whatever arrives.
import type { CallbackQuery, Chat, Message, User } from 'grammy/types';
import { PersonTextSchema, type Action, type ChatType, type Inbound } from '../../src/core/types.ts';
import { attachmentsOf } from './attachments.ts';
import { checkCallback, checkMessage, readableEntities } from './payloads.ts';

export interface BotIdentity {
  id: number;
  username: string;
}

export interface AccessPolicy {
  allowedChats: ReadonlySet<string>;
  allowedUsers: ReadonlySet<string>;
}

/** Forum supergroups: the General topic. It is never passed as message_thread_id when sending. */
export const GENERAL_TOPIC_ID = 1;

export type ButtonPress = Omit<Action, 'reply'> & { callbackQueryId: string };

export type ClassifiedUpdate =
  | { kind: 'message'; inbound: Inbound }
  | { kind: 'button'; press: ButtonPress }
  /** Not for the bot. A button press still has to be answered (`callbackQueryId`). */
  | { kind: 'ignored'; reason: string; callbackQueryId?: string }
  | { kind: 'malformed'; reason: string; callbackQueryId?: string };

const COMMAND = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{1,64}))?(?=\s|$)/;

function chatTypeOf(chat: Pick<Chat, 'type'>): ChatType {
  return chat.type === 'private' ? 'direct' : 'group';
}

function displayNameOf(user: User): string {
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ').trim() || user.username || String(user.id);
  // Button presses reach the core without its Inbound schema, so names are made storable here.
  return PersonTextSchema.parse(name);
}

/** The forum topic a message belongs to; undefined outside forums and in the General topic. */
function topicOf(message: Pick<Message, 'chat' | 'is_topic_message' | 'message_thread_id'>): string | undefined {
  const forum = message.chat.type === 'supergroup' && message.chat.is_forum === true;
  if (!forum || !message.is_topic_message || message.message_thread_id === undefined) return undefined;
  return message.message_thread_id === GENERAL_TOPIC_ID ? undefined : String(message.message_thread_id);
}

function refusedBy(access: AccessPolicy, chatId: number, userId: number): string | undefined {
  if (access.allowedChats.size > 0 && !access.allowedChats.has(String(chatId))) return `chat ${chatId} is not in TELEGRAM_ALLOWED_CHATS`;
  if (access.allowedUsers.size > 0 && !access.allowedUsers.has(String(userId))) return `user ${userId} is not in TELEGRAM_ALLOWED_USERS`;
  return undefined;
}

function sameUsername(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Who wrote a message: a person, or a chat writing as itself (an anonymous group admin, a channel). */
type Sender =
  | { kind: 'sender'; id: number; displayName: string; languageCode?: string }
  | { kind: 'ignored'; reason: string }
  | { kind: 'malformed'; reason: string };

function senderOf(message: Message, bot: BotIdentity): Sender {
  const chat = message.sender_chat;
  // `from` is then a placeholder bot (GroupAnonymousBot, Channel_Bot) kept for old clients.
  if (chat) {
    if (message.is_automatic_forward) return { kind: 'ignored', reason: 'a channel post forwarded into its discussion group' };
    const name = ('title' in chat ? chat.title : undefined) || ('username' in chat ? chat.username : undefined) || String(chat.id);
    return { kind: 'sender', id: chat.id, displayName: PersonTextSchema.parse(name) };
  }
  const from = message.from;
  if (!from) return { kind: 'malformed', reason: 'from: absent, and no sender_chat' };
  if (from.is_bot) return { kind: 'ignored', reason: from.id === bot.id ? 'my own message' : `message from another bot (${from.id})` };
  return {
    kind: 'sender',
    id: from.id,
    displayName: displayNameOf(from),
    ...(from.language_code ? { languageCode: from.language_code } : {}),
  };
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === '' ? undefined : text;
}

/** Whether `text` names the bot as `@username`: what Telegram would have marked had it sent no entities. */
function namesBot(text: string, username: string): boolean {
  const escaped = username.replace(/[^A-Za-z0-9_]/g, '\\$&');
  return new RegExp(`(?<![\\w@])@${escaped}(?!\\w)`, 'i').test(text);
}

/** A message (update.message), `updateId` being its update's id. */
export function classifyMessage(updateId: number, raw: Message, bot: BotIdentity, access: AccessPolicy, channel: string): ClassifiedUpdate {
  const checked = checkMessage(raw);
  if (!checked.ok) return { kind: 'malformed', reason: `update ${updateId} message: ${checked.problem}` };
  const message = checked.value;
  if (message.chat.type === 'channel') return { kind: 'ignored', reason: 'channel post' };
  const sender = senderOf(message, bot);
  if (sender.kind === 'malformed') return { kind: 'malformed', reason: `update ${updateId} message: ${sender.reason}` };
  if (sender.kind === 'ignored') return sender;
  const attachments = attachmentsOf(message);
  // A caption is the text of a photo, file or video.
  const inText = nonEmpty(message.text) !== undefined;
  const original = inText ? message.text : nonEmpty(message.caption);
  if (original === undefined && attachments.length === 0) {
    // Nothing left to read because a file did not parse: said as loudly as any malformed payload.
    if (checked.dropped.length > 0) return { kind: 'malformed', reason: `update ${updateId} message: ${checked.dropped.join('; ')}` };
    return { kind: 'ignored', reason: 'neither text nor an attachment (service message, poll, location...)' };
  }
  const refusal = refusedBy(access, message.chat.id, sender.id);
  if (refusal) return { kind: 'ignored', reason: refusal };

  let text = original ?? '';
  let mentionsBot = false;
  const command = COMMAND.exec(text);
  if (command?.[2] !== undefined) {
    if (!sameUsername(command[2], bot.username)) return { kind: 'ignored', reason: `command for another bot (@${command[2]})` };
    text = `/${command[1]}${text.slice(command[0].length)}`;
    mentionsBot = true;
  }
  const rawEntities = inText ? message.entities : message.caption_entities;
  const entities = readableEntities(rawEntities);
  // Entity offsets count UTF-16 code units, as JavaScript strings do.
  mentionsBot ||= entities.some(
    (entity) =>
      (entity.type === 'mention' &&
        sameUsername((original ?? '').slice(entity.offset, entity.offset + entity.length), `@${bot.username}`)) ||
      (entity.type === 'text_mention' && entity.user.id === bot.id),
  );
  // Telegram marks every @username it sees; a message that came without entities is read as it would have marked it.
  mentionsBot ||= rawEntities === undefined && namesBot(original ?? '', bot.username);

  const threadId = topicOf(message);
  // In a forum topic, a message that replies to nothing points at the topic's opening message;
  // that is not a reply to anyone.
  const target = message.reply_to_message;
  const realReply =
    target !== undefined && target.forum_topic_created === undefined && !(threadId !== undefined && String(target.message_id) === threadId);

  const inbound: Inbound = {
    channel,
    chatId: String(message.chat.id),
    chatType: chatTypeOf(message.chat),
    ...(threadId ? { threadId } : {}),
    messageId: String(message.message_id),
    // Prefixed with the bot's id: update ids are per bot, and the store remembers them per channel.
    eventId: `${bot.id}:${updateId}`,
    sender: { id: String(sender.id), displayName: sender.displayName, isBot: false },
    text,
    attachments,
    mentionsBot,
    repliesToBot: realReply && target.from?.id === bot.id,
    ...(realReply ? { replyToMessageId: String(target.message_id) } : {}),
    ...(sender.languageCode ? { locale: sender.languageCode } : {}),
    // Telegram always sends the date; without one, the message is as old as its arrival.
    receivedAt: message.date === undefined ? new Date() : new Date(message.date * 1000),
    ...('title' in message.chat && message.chat.title ? { chatTitle: message.chat.title } : {}),
  };
  return { kind: 'message', inbound };
}

/** Looks for a callback query id in a payload that failed its check, so it can still be answered. */
function callbackIdOf(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || !('id' in raw)) return undefined;
  return typeof raw.id === 'string' && raw.id ? raw.id : undefined;
}

/** A button press (update.callback_query with data). */
export function classifyCallback(
  updateId: number,
  raw: CallbackQuery,
  _bot: BotIdentity,
  access: AccessPolicy,
  channel: string,
): ClassifiedUpdate {
  const checked = checkCallback(raw);
  if (!checked.ok) {
    const callbackQueryId = callbackIdOf(raw);
    return {
      kind: 'malformed',
      reason: `update ${updateId} callback_query: ${checked.problem}`,
      ...(callbackQueryId ? { callbackQueryId } : {}),
    };
  }
  const query = checked.value;
  const callbackQueryId = query.id;
  const message = query.message;
  if (!message) return { kind: 'ignored', reason: 'button on a message I cannot see', callbackQueryId };
  if (!query.data) return { kind: 'ignored', reason: 'button press without data', callbackQueryId };
  if (query.from.is_bot) return { kind: 'ignored', reason: 'button pressed by a bot', callbackQueryId };
  const refusal = refusedBy(access, message.chat.id, query.from.id);
  if (refusal) return { kind: 'ignored', reason: refusal, callbackQueryId };
  // An inaccessible message (date 0) has no topic fields, so it reads as outside any topic.
  const threadId = 'is_topic_message' in message ? topicOf(message) : undefined;
  return {
    kind: 'button',
    press: {
      callbackQueryId,
      channel,
      chatId: String(message.chat.id),
      chatType: chatTypeOf(message.chat),
      ...(threadId ? { threadId } : {}),
      messageId: String(message.message_id),
      userId: String(query.from.id),
      displayName: displayNameOf(query.from),
      payload: query.data,
      ...(query.from.language_code ? { locale: query.from.language_code } : {}),
    },
  };
}
