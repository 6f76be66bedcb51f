// The fake Telegram's state: users, chats, forum topics, every message with its edit history,
// pending callback queries, and the update queue (what getUpdates or the webhook delivers).
// Tests drive it through FakeTelegram (server.ts); this file knows nothing about HTTP.
import type { MessageEntity, StoredMessage, TgCallbackQuery, TgChat, TgMessage, TgUpdate, TgUser } from './types.ts';

/** What a media message carries instead of text. */
export type Media = Pick<TgMessage, 'photo' | 'document' | 'video' | 'voice' | 'audio' | 'sticker'>;

export interface ChatState {
  chat: TgChat;
  nextMessageId: number;
  messages: Map<number, StoredMessage>;
  /** Forum topic ids (the message id of each topic's opening service message). */
  topics: Map<number, TgMessage>;
}

export interface CallbackState {
  query: TgCallbackQuery;
  answers: { text?: string; show_alert?: boolean }[];
}

export interface SayOptions {
  /** Reply to this message (in the same chat). */
  replyTo?: number;
  /** Forum topic to write in (default: the replied message's topic, else General). */
  topic?: number;
  /** Entities as the Telegram client would send them; default: mentions and commands detected. */
  entities?: MessageEntity[];
}

export interface UserOptions {
  username?: string;
  lastName?: string;
  isBot?: boolean;
  /** The client's language (default "en" for people; bots have none). */
  languageCode?: string;
  premium?: boolean;
}

const NO_GIFTS = {
  unlimited_gifts: false,
  limited_gifts: false,
  unique_gifts: false,
  premium_subscription: false,
  gifts_from_channels: false,
};

/** What Telegram's server detects in a typed message: @mentions and /commands. */
function detectEntities(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  for (const match of text.matchAll(/(^|\s)(\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?)(?=\s|$)/g)) {
    entities.push({ type: 'bot_command', offset: match.index + match[1]!.length, length: match[2]!.length });
  }
  for (const match of text.matchAll(/(^|[^\w/@])(@[A-Za-z0-9_]{5,32})(?![\w])/g)) {
    entities.push({ type: 'mention', offset: match.index + match[1]!.length, length: match[2]!.length });
  }
  return entities.sort((a, b) => a.offset - b.offset);
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** Telegram nests only one level of reply_to_message. */
export function withoutReply(message: TgMessage): TgMessage {
  const { reply_to_message: _ignored, ...rest } = message;
  return structuredClone(rest);
}

export class TelegramWorld {
  readonly bot: TgUser;
  readonly chats = new Map<number, ChatState>();
  readonly callbacks = new Map<string, CallbackState>();
  /** Updates not yet confirmed (long polling) or delivered (webhook), in update_id order. */
  queue: TgUpdate[] = [];
  /**
   * Updates to deliver once more, whatever the offset (a lost confirmation). Long polling: each is
   * marked delivered when returned and dropped at the bot's next getUpdates (its confirmation).
   */
  redeliveries: { update: TgUpdate; delivered: boolean }[] = [];
  #nextUpdateId = 500_000;
  #nextUserId = 1_000;
  #nextGroupId = 1;
  #nextQueryId = 1;
  /** Called whenever an update is queued. */
  onUpdate: () => void = () => {};

  constructor(bot: TgUser) {
    this.bot = bot;
  }

  /** A person (or a bot) as Telegram describes them; people's clients tell their language (default "en"). */
  user(firstName: string, options: UserOptions = {}): TgUser {
    const isBot = options.isBot ?? false;
    const language = options.languageCode ?? (isBot ? undefined : 'en');
    return {
      id: this.#nextUserId++,
      is_bot: isBot,
      first_name: firstName,
      ...(options.lastName ? { last_name: options.lastName } : {}),
      ...(options.username ? { username: options.username } : {}),
      ...(language ? { language_code: language } : {}),
      ...(options.premium ? { is_premium: true as const } : {}),
    };
  }

  privateChat(user: TgUser): TgChat {
    return this.#addChat({
      id: user.id,
      first_name: user.first_name,
      ...(user.last_name ? { last_name: user.last_name } : {}),
      ...(user.username ? { username: user.username } : {}),
      type: 'private',
    });
  }

  group(title: string, options: { forum?: boolean; supergroup?: boolean } = {}): TgChat {
    const n = this.#nextGroupId++;
    const supergroup = options.supergroup ?? options.forum ?? false;
    const id = supergroup ? -1_001_000_000_000 - n : -1_000 - n;
    if (supergroup) return this.#addChat({ id, title, ...(options.forum ? { is_forum: true as const } : {}), type: 'supergroup' });
    return this.#addChat({ id, title, type: 'group', all_members_are_administrators: false, accepted_gift_types: NO_GIFTS });
  }

  #addChat(chat: TgChat): TgChat {
    if (!this.chats.has(chat.id)) this.chats.set(chat.id, { chat, nextMessageId: 100, messages: new Map(), topics: new Map() });
    return chat;
  }

  state(chatId: number): ChatState | undefined {
    return this.chats.get(chatId);
  }

  store(state: ChatState, message: Omit<TgMessage, 'message_id' | 'date' | 'chat'>, parseMode?: string): TgMessage {
    const full: TgMessage = { message_id: state.nextMessageId++, date: now(), chat: state.chat, ...message };
    state.messages.set(full.message_id, { message: full, versions: [full.text ?? ''], parseModes: [parseMode] });
    return full;
  }

  enqueue(build: (updateId: number) => TgUpdate): TgUpdate {
    const update = build(this.#nextUpdateId++);
    this.queue.push(update);
    this.onUpdate();
    return update;
  }

  /** A forum topic opened by `by`; its service message is delivered like Telegram does. */
  createTopic(chat: TgChat, name: string, by: TgUser): number {
    const state = this.chats.get(chat.id)!;
    if (!chat.is_forum) throw new Error(`chat ${chat.id} is not a forum`);
    const opening = this.store(state, { from: by, forum_topic_created: { name, icon_color: 7322096 }, is_topic_message: true });
    opening.message_thread_id = opening.message_id;
    state.topics.set(opening.message_id, opening);
    this.enqueue((update_id) => ({ update_id, message: structuredClone(opening) }));
    return opening.message_id;
  }

  say(from: TgUser, chat: TgChat, text: string, options: SayOptions = {}): { update: TgUpdate; message: TgMessage } {
    const state = this.chats.get(chat.id);
    if (!state) throw new Error(`unknown chat ${chat.id}`);
    const target = options.replyTo !== undefined ? state.messages.get(options.replyTo)?.message : undefined;
    if (options.replyTo !== undefined && !target) throw new Error(`no message ${options.replyTo} in chat ${chat.id}`);
    const topic = options.topic ?? target?.message_thread_id;
    const entities = options.entities ?? detectEntities(text);
    const replyTo = target ?? (chat.is_forum && topic !== undefined ? state.topics.get(topic) : undefined);
    const message = this.store(state, {
      from,
      text,
      ...(entities.length ? { entities } : {}),
      ...(chat.is_forum && topic !== undefined ? { message_thread_id: topic, is_topic_message: true } : {}),
      ...(replyTo ? { reply_to_message: withoutReply(replyTo) } : {}),
    });
    const update = this.enqueue((update_id) => ({ update_id, message: structuredClone(message) }));
    return { update, message };
  }

  /** A photo, file, voice message... with an optional caption (mentions and commands detected in it). */
  sendMedia(from: TgUser, chat: TgChat, media: Media, caption?: string): { update: TgUpdate; message: TgMessage } {
    const state = this.chats.get(chat.id);
    if (!state) throw new Error(`unknown chat ${chat.id}`);
    const entities = caption === undefined ? [] : detectEntities(caption);
    const message = this.store(state, {
      from,
      ...media,
      ...(caption !== undefined ? { caption } : {}),
      ...(entities.length ? { caption_entities: entities } : {}),
    });
    const update = this.enqueue((update_id) => ({ update_id, message: structuredClone(message) }));
    return { update, message };
  }

  editByUser(chat: TgChat, messageId: number, text: string): TgUpdate {
    const stored = this.chats.get(chat.id)?.messages.get(messageId);
    if (!stored) throw new Error(`no message ${messageId}`);
    stored.message.text = text;
    stored.message.edit_date = now();
    stored.versions.push(text);
    return this.enqueue((update_id) => ({ update_id, edited_message: structuredClone(stored.message) }));
  }

  /** A service message (someone joined, a title changed...). */
  service(chat: TgChat, from: TgUser, fields: Pick<TgMessage, 'new_chat_members'>): TgUpdate {
    const state = this.chats.get(chat.id)!;
    const message = this.store(state, { from, ...fields });
    return this.enqueue((update_id) => ({ update_id, message: structuredClone(message) }));
  }

  /** Queues a callback query exactly as given (a variant of a real one); it is answerable like a click's. */
  injectCallback(query: Record<string, unknown> & { id: string }): TgUpdate {
    this.callbacks.set(query.id, { query: query as unknown as TgCallbackQuery, answers: [] });
    return this.enqueue((update_id) => ({ update_id, callback_query: query as unknown as TgCallbackQuery }));
  }

  /** `from` presses the button labelled `label` on a message; returns the callback query id. */
  click(from: TgUser, chat: TgChat, messageId: number, label: string): string {
    const stored = this.chats.get(chat.id)?.messages.get(messageId);
    if (!stored) throw new Error(`no message ${messageId} in chat ${chat.id}`);
    const button = stored.message.reply_markup?.inline_keyboard.flat().find((b) => b.text === label);
    if (!button?.callback_data) {
      const labels = stored.message.reply_markup?.inline_keyboard.flat().map((b) => b.text) ?? [];
      throw new Error(`message ${messageId} has no button "${label}" (has: ${labels.join(', ') || 'none'})`);
    }
    const query: TgCallbackQuery = {
      id: String(4_000_000_000 + this.#nextQueryId++),
      from,
      message: structuredClone(stored.message),
      chat_instance: `ci${chat.id}`,
      data: button.callback_data,
    };
    this.callbacks.set(query.id, { query, answers: [] });
    this.enqueue((update_id) => ({ update_id, callback_query: query }));
    return query.id;
  }
}
