// The fake Bot API's message methods: what Telegram checks and answers for sendMessage,
// editMessageText, editMessageReplyMarkup, answerCallbackQuery, sendChatAction and setMyCommands.
import { parseTelegramHtml } from './html.ts';
import { errors, type MessageEntity, type StoredMessage, type TgError, type TgMessage, type TgReplyMarkup } from './types.ts';
import { withoutReply, type ChatState, type TelegramWorld } from './world.ts';

/** A Bot API error answer. */
export class ApiFailure extends Error {
  readonly error: TgError;
  constructor(error: TgError) {
    super(error.description);
    this.error = error;
  }
}

const MAX_TEXT = 4096;
const MAX_TOAST = 200;
const NOT_MODIFIED =
  'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';
const CHAT_ACTIONS = new Set([
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
]);

export function num(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  return undefined;
}

export class MessageMethods {
  readonly #world: TelegramWorld;
  /**
   * The latest setMyCommands per language_code ('' for everyone): Telegram shows a user the menu of
   * their app's language when there is one, else the default (Bot API: setMyCommands, language_code).
   */
  readonly menus = new Map<string, { command: string; description: string }[]>();

  /** The default menu (no language_code). */
  get commands(): { command: string; description: string }[] | undefined {
    return this.menus.get('');
  }

  constructor(world: TelegramWorld) {
    this.#world = world;
  }

  #chat(p: Record<string, unknown>): ChatState {
    const id = num(p.chat_id);
    const state = id === undefined ? undefined : this.#world.state(id);
    if (!state) throw new ApiFailure(errors.badRequest('chat not found'));
    return state;
  }

  #text(raw: unknown, parseMode: unknown): { text: string; entities: MessageEntity[] } {
    if (typeof raw !== 'string' || raw.length === 0) throw new ApiFailure(errors.badRequest('message text is empty'));
    let parsed: { text: string; entities: MessageEntity[] };
    if (parseMode === 'HTML') parsed = parseTelegramHtml(raw);
    else if (parseMode === undefined || parseMode === '') parsed = { text: raw, entities: [] };
    else throw new ApiFailure(errors.badRequest(`fake Telegram does not implement parse_mode ${String(parseMode)}`));
    if (parsed.text.trim() === '') throw new ApiFailure(errors.badRequest('message text is empty'));
    if (parsed.text.length > MAX_TEXT) throw new ApiFailure(errors.badRequest('message is too long'));
    return parsed;
  }

  #markup(raw: unknown): TgReplyMarkup | undefined {
    if (raw === undefined) return undefined;
    let markup: TgReplyMarkup;
    try {
      markup = (typeof raw === 'string' ? JSON.parse(raw) : raw) as TgReplyMarkup;
    } catch {
      throw new ApiFailure(errors.badRequest("can't parse reply keyboard markup JSON object"));
    }
    if (!Array.isArray(markup?.inline_keyboard)) throw new ApiFailure(errors.badRequest('unsupported reply_markup'));
    for (const button of markup.inline_keyboard.flat()) {
      if (typeof button.text !== 'string' || button.text === '') throw new ApiFailure(errors.badRequest('BUTTON_TEXT_INVALID'));
      const data = button.callback_data;
      if (data !== undefined && (typeof data !== 'string' || Buffer.byteLength(data) < 1 || Buffer.byteLength(data) > 64)) {
        throw new ApiFailure(errors.badRequest('BUTTON_DATA_INVALID'));
      }
      if (button.style !== undefined && !['danger', 'success', 'primary'].includes(button.style)) {
        throw new ApiFailure(errors.badRequest('BUTTON_STYLE_INVALID'));
      }
    }
    return markup.inline_keyboard.some((row) => row.length > 0) ? markup : undefined;
  }

  /** The topic a message goes to; forum topics must exist (General, id 1, is not one). */
  #thread(state: ChatState, raw: unknown, fallback?: number): number | undefined {
    const requested = num(raw);
    if (!state.chat.is_forum) return undefined;
    if (requested === undefined) return fallback;
    if (!state.topics.has(requested)) throw new ApiFailure(errors.badRequest('message thread not found'));
    return requested;
  }

  sendMessage(p: Record<string, unknown>): TgMessage {
    const state = this.#chat(p);
    const { text, entities } = this.#text(p.text, p.parse_mode);
    const reply = (p.reply_parameters ?? {}) as { message_id?: unknown; allow_sending_without_reply?: unknown };
    const replyId = num(reply.message_id) ?? num(p.reply_to_message_id);
    const target = replyId !== undefined ? state.messages.get(replyId)?.message : undefined;
    if (replyId !== undefined && !target && reply.allow_sending_without_reply !== true && p.allow_sending_without_reply !== true) {
      throw new ApiFailure(errors.badRequest('message to be replied not found'));
    }
    const thread = this.#thread(state, p.message_thread_id, target?.message_thread_id);
    const markup = this.#markup(p.reply_markup);
    const topicOpening = thread !== undefined ? state.topics.get(thread) : undefined;
    const replyTo = target ?? topicOpening;
    const message = this.#world.store(
      state,
      {
        from: this.#world.bot,
        text,
        ...(entities.length ? { entities } : {}),
        ...(thread !== undefined ? { message_thread_id: thread, is_topic_message: true } : {}),
        ...(replyTo ? { reply_to_message: withoutReply(replyTo) } : {}),
        ...(markup ? { reply_markup: markup } : {}),
      },
      typeof p.parse_mode === 'string' ? p.parse_mode : undefined,
    );
    return structuredClone(message);
  }

  #botMessage(state: ChatState, p: Record<string, unknown>): StoredMessage {
    if (p.inline_message_id !== undefined) throw new ApiFailure(errors.badRequest('fake Telegram does not implement inline messages'));
    const stored = state.messages.get(num(p.message_id) ?? -1);
    if (!stored) throw new ApiFailure(errors.badRequest('message to edit not found'));
    if (stored.message.from?.id !== this.#world.bot.id) throw new ApiFailure(errors.badRequest("message can't be edited"));
    return stored;
  }

  editMessageText(p: Record<string, unknown>): TgMessage {
    const state = this.#chat(p);
    const stored = this.#botMessage(state, p);
    const { text, entities } = this.#text(p.text, p.parse_mode);
    const markup = this.#markup(p.reply_markup);
    const current = stored.message;
    if (current.text === text && same(current.entities ?? [], entities) && same(current.reply_markup, markup)) {
      throw new ApiFailure(errors.badRequest(NOT_MODIFIED));
    }
    current.text = text;
    if (entities.length) current.entities = entities;
    else delete current.entities;
    // An edit without reply_markup removes the inline keyboard, as on Telegram.
    if (markup) current.reply_markup = markup;
    else delete current.reply_markup;
    current.edit_date = Math.floor(Date.now() / 1000);
    stored.versions.push(text);
    stored.parseModes.push(typeof p.parse_mode === 'string' ? p.parse_mode : undefined);
    return structuredClone(current);
  }

  editMessageReplyMarkup(p: Record<string, unknown>): TgMessage {
    const state = this.#chat(p);
    const stored = this.#botMessage(state, p);
    const markup = this.#markup(p.reply_markup);
    if (same(stored.message.reply_markup, markup)) throw new ApiFailure(errors.badRequest(NOT_MODIFIED));
    if (markup) stored.message.reply_markup = markup;
    else delete stored.message.reply_markup;
    stored.message.edit_date = Math.floor(Date.now() / 1000);
    return structuredClone(stored.message);
  }

  answerCallbackQuery(p: Record<string, unknown>): true {
    const state = typeof p.callback_query_id === 'string' ? this.#world.callbacks.get(p.callback_query_id) : undefined;
    if (!state || state.answers.length > 0) {
      throw new ApiFailure(errors.badRequest('query is too old and response timeout expired or query ID is invalid'));
    }
    if (typeof p.text === 'string' && p.text.length > MAX_TOAST) throw new ApiFailure(errors.badRequest('MESSAGE_TOO_LONG'));
    state.answers.push({ ...(typeof p.text === 'string' ? { text: p.text } : {}), ...(p.show_alert === true ? { show_alert: true } : {}) });
    return true;
  }

  sendChatAction(p: Record<string, unknown>): true {
    const state = this.#chat(p);
    if (typeof p.action !== 'string' || !CHAT_ACTIONS.has(p.action))
      throw new ApiFailure(errors.badRequest('wrong parameter action in request'));
    this.#thread(state, p.message_thread_id);
    return true;
  }

  setMyCommands(p: Record<string, unknown>): true {
    const commands = p.commands;
    if (!Array.isArray(commands) || commands.length > 100)
      throw new ApiFailure(errors.badRequest('commands must be an array of at most 100 BotCommand'));
    const checked = commands.map((entry: unknown) => {
      const { command, description } = (entry ?? {}) as { command?: unknown; description?: unknown };
      if (typeof command !== 'string' || !/^[a-z0-9_]{1,32}$/.test(command)) throw new ApiFailure(errors.badRequest('BOT_COMMAND_INVALID'));
      if (typeof description !== 'string' || description.length < 1 || description.length > 256) {
        throw new ApiFailure(errors.badRequest('BOT_COMMAND_DESCRIPTION_INVALID'));
      }
      return { command, description };
    });
    this.menus.set(typeof p.language_code === 'string' ? p.language_code : '', checked);
    return true;
  }
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
