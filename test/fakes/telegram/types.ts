// Bot API object shapes the fake stores and returns (the subset Parley's adapter uses). As the real
// server writes them (tdlib/telegram-bot-api 10.0, telegram-bot-api/Client.cpp: JsonUser, JsonChat,
// JsonMessage::store, JsonCallbackQuery): an optional field is left out when it has no value, never
// null; is_bot and first_name are always there (first_name may be empty), language_code when the
// client told it, is_premium only when true; a basic group carries all_members_are_administrators
// and accepted_gift_types, a forum supergroup is_forum: true.
import type { MessageEntity } from './html.ts';

export type { MessageEntity };

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
  is_premium?: true;
}

interface TgAcceptedGiftTypes {
  unlimited_gifts: boolean;
  limited_gifts: boolean;
  unique_gifts: boolean;
  premium_subscription: boolean;
  gifts_from_channels: boolean;
}

export interface TgChat {
  id: number;
  type: 'private' | 'group' | 'supergroup';
  title?: string;
  first_name?: string;
  last_name?: string;
  username?: string;
  is_forum?: true;
  all_members_are_administrators?: boolean;
  accepted_gift_types?: TgAcceptedGiftTypes;
}

interface TgInlineButton {
  text: string;
  callback_data?: string;
  url?: string;
  style?: string;
}

export interface TgReplyMarkup {
  inline_keyboard: TgInlineButton[][];
}

export interface TgMessage {
  message_id: number;
  from?: TgUser;
  chat: TgChat;
  date: number;
  edit_date?: number;
  message_thread_id?: number;
  is_topic_message?: boolean;
  text?: string;
  entities?: MessageEntity[];
  reply_to_message?: TgMessage;
  reply_markup?: TgReplyMarkup;
  forum_topic_created?: { name: string; icon_color: number };
  new_chat_members?: TgUser[];
  caption?: string;
  caption_entities?: MessageEntity[];
  photo?: TgFile[];
  document?: TgFile;
  video?: TgFile;
  voice?: TgFile;
  audio?: TgFile;
  sticker?: TgFile & { emoji?: string; is_animated?: boolean; is_video?: boolean };
}

/** A file as messages carry it (PhotoSize, Document, Voice...; only the fields Parley reads). */
interface TgFile {
  file_id: string;
  file_unique_id: string;
  file_size?: number;
  file_name?: string;
  mime_type?: string;
  width?: number;
  height?: number;
  duration?: number;
}

export interface TgCallbackQuery {
  id: string;
  from: TgUser;
  message?: TgMessage;
  chat_instance: string;
  data?: string;
}

export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  edited_message?: TgMessage;
  callback_query?: TgCallbackQuery;
}

/** A Bot API failure as Telegram sends it. */
export interface TgError {
  error_code: number;
  description: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** Every call the bot made, in order. */
export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  /** Date.now() when the request arrived. */
  at: number;
  ok: boolean;
  error?: TgError;
}

/** A bot message with everything it has shown. */
export interface StoredMessage {
  message: TgMessage;
  /** Visible text of each version, first to last. */
  versions: string[];
  /** How each version was sent: 'HTML', or undefined for plain text. */
  parseModes: (string | undefined)[];
}

export const errors = {
  tooManyRequests: (retryAfter: number): TgError => ({
    error_code: 429,
    description: `Too Many Requests: retry after ${retryAfter}`,
    parameters: { retry_after: retryAfter },
  }),
  cantParseEntities: (): TgError => ({
    error_code: 400,
    description: 'Bad Request: can\'t parse entities: Can\'t find end tag corresponding to start tag "b"',
  }),
  badRequest: (detail: string): TgError => ({ error_code: 400, description: `Bad Request: ${detail}` }),
};
