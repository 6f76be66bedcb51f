// Sending and editing messages: Markdown rendered as HTML, resent as plain text when Telegram
// refuses the HTML; replies, forum topics, inline keyboards; edits that would change nothing are
// skipped. Rate limits (429) are waited out by the auto-retry transformer installed on the Api.
import type { Api } from 'grammy';
import type { InlineKeyboardButton, InlineKeyboardMarkup, Message } from 'grammy/types';
import { z } from 'zod';
import type { Button, ChatRef, CoreLogger, OutboundMessage, SentRef } from '../../src/core/types.ts';
import { isEntityParseError, isMessageTooLong, isNotModified, safeErrorMessage, toSafeError } from './api-errors.ts';
import { GENERAL_TOPIC_ID } from './inbound.ts';
import { escapeHtml, markdownToTelegramHtml } from './render.ts';

export interface OutboundOptions {
  api: Api;
  channel: string;
  /** Only used to scrub error messages. */
  token: string;
  log: CoreLogger;
}

type Keyboard = InlineKeyboardButton.CallbackButton[][];

const StoredKeyboardSchema = z.array(
  z.array(z.object({ text: z.string(), callback_data: z.string(), style: z.enum(['primary', 'danger', 'success']).optional() })),
);

/** How many messages' last content is remembered to skip no-op edits. */
const REMEMBERED_MESSAGES = 1_000;

function keyboardOf(buttons: Button[][] | undefined): Keyboard | undefined {
  const rows = (buttons ?? []).filter((row) => row.length > 0);
  if (rows.length === 0) return undefined;
  return rows.map((row) => row.map((b) => ({ text: b.label, callback_data: b.payload, ...(b.style ? { style: b.style } : {}) })));
}

/** `remove`: send an empty keyboard, which removes an existing one whatever the method. */
function markupOf(keyboard: Keyboard | undefined, remove = false): { reply_markup: InlineKeyboardMarkup } | Record<string, never> {
  if (keyboard) return { reply_markup: { inline_keyboard: keyboard } };
  return remove ? { reply_markup: { inline_keyboard: [] } } : {};
}

/** Numeric ids go as numbers (what Telegram returns); anything else (e.g. @channel) as is. */
function chatIdOf(chatId: string): number | string {
  return /^-?\d+$/.test(chatId) ? Number(chatId) : chatId;
}

/** message_thread_id for a topic; the General topic takes none. */
function threadOf(threadId: string | undefined): { message_thread_id: number } | Record<string, never> {
  const id = threadId !== undefined && /^\d+$/.test(threadId) ? Number(threadId) : undefined;
  return id !== undefined && id !== GENERAL_TOPIC_ID ? { message_thread_id: id } : {};
}

function refusedRendering(error: unknown): boolean {
  return isEntityParseError(error) || isMessageTooLong(error);
}

export class TelegramOutbound {
  readonly #o: OutboundOptions;
  /** Last requested content per message ("chatId:messageId"), to skip edits that change nothing. */
  readonly #requested = new Map<string, string>();

  constructor(options: OutboundOptions) {
    this.#o = options;
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    const keyboard = keyboardOf(message.buttons);
    const replyTo =
      message.replyToMessageId !== undefined && /^\d+$/.test(message.replyToMessageId) ? Number(message.replyToMessageId) : undefined;
    const common = {
      ...threadOf(chat.threadId),
      ...(replyTo !== undefined ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
      ...markupOf(keyboard),
    };
    const chatId = chatIdOf(chat.chatId);
    const html = markdownToTelegramHtml(message.text);
    let sent: Message.TextMessage;
    try {
      sent = await this.#o.api.sendMessage(chatId, html, { ...common, parse_mode: 'HTML' });
    } catch (error) {
      if (!refusedRendering(error)) throw toSafeError(error, this.#o.token);
      const why = safeErrorMessage(error, this.#o.token);
      this.#o.log.warn({ chatId: chat.chatId }, `Telegram refused the formatted text, sending it as plain text (${why})`);
      sent = await this.#o.api.sendMessage(chatId, message.text, common).catch((plainError: unknown) => {
        throw toSafeError(plainError, this.#o.token);
      });
    }
    const ref: SentRef = {
      channel: this.#o.channel,
      chatId: chat.chatId,
      messageId: String(sent.message_id),
      ...(chat.threadId ? { threadId: chat.threadId } : {}),
      // Telegram drops a keyboard on any edit that does not repeat it, so it travels with the ref.
      ...(keyboard ? { extra: { keyboard: JSON.stringify(keyboard) } } : {}),
    };
    this.#remember(ref, html, keyboard);
    return ref;
  }

  /** `buttons` undefined keeps the message's keyboard; `[]` removes it. */
  async edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    const keyboard = message.buttons === undefined ? this.#storedKeyboard(ref) : keyboardOf(message.buttons);
    const markup = markupOf(keyboard, message.buttons !== undefined);
    const html = markdownToTelegramHtml(message.text);
    if (this.#requested.get(this.#key(ref)) === this.#signature(html, keyboard)) return;
    const chatId = chatIdOf(ref.chatId);
    const messageId = Number(ref.messageId);
    try {
      await this.#o.api.editMessageText(chatId, messageId, html, { parse_mode: 'HTML', ...markup });
    } catch (error) {
      if (isNotModified(error)) {
        this.#remember(ref, html, keyboard);
        return;
      }
      if (!refusedRendering(error)) throw toSafeError(error, this.#o.token);
      const why = safeErrorMessage(error, this.#o.token);
      this.#o.log.warn({ chatId: ref.chatId }, `Telegram refused the formatted text, editing to plain text (${why})`);
      try {
        await this.#o.api.editMessageText(chatId, messageId, message.text, markup);
      } catch (plainError) {
        if (!isNotModified(plainError)) throw toSafeError(plainError, this.#o.token);
      }
    }
    this.#remember(ref, html, keyboard);
  }

  /**
   * A message meant for one person, after their button press was answered (a toast is no longer
   * possible then): in a group, a reply to the pressed message that mentions them; in a private
   * chat, a plain message.
   */
  async whisper(
    to: { chatId: string; chatType: ChatRef['chatType']; threadId?: string; messageId: string; userId: string; displayName: string },
    text: string,
  ): Promise<void> {
    const mention =
      to.chatType === 'group' && /^\d+$/.test(to.userId) ? `<a href="tg://user?id=${to.userId}">${escapeHtml(to.displayName)}</a>: ` : '';
    const replyTo = /^\d+$/.test(to.messageId)
      ? { reply_parameters: { message_id: Number(to.messageId), allow_sending_without_reply: true } }
      : {};
    try {
      await this.#o.api.sendMessage(chatIdOf(to.chatId), `${mention}${escapeHtml(text)}`, {
        parse_mode: 'HTML',
        ...threadOf(to.threadId),
        ...replyTo,
      });
    } catch (error) {
      throw toSafeError(error, this.#o.token);
    }
  }

  async typing(chat: ChatRef): Promise<void> {
    try {
      await this.#o.api.sendChatAction(chatIdOf(chat.chatId), 'typing', threadOf(chat.threadId));
    } catch (error) {
      throw toSafeError(error, this.#o.token);
    }
  }

  #storedKeyboard(ref: SentRef): Keyboard | undefined {
    const raw = ref.extra?.keyboard;
    if (!raw) return undefined;
    try {
      const parsed = StoredKeyboardSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  #key(ref: SentRef): string {
    return `${ref.chatId}:${ref.messageId}`;
  }

  #signature(html: string, keyboard: Keyboard | undefined): string {
    return `${html}\u0000${keyboard ? JSON.stringify(keyboard) : ''}`;
  }

  #remember(ref: SentRef, html: string, keyboard: Keyboard | undefined): void {
    const key = this.#key(ref);
    this.#requested.delete(key);
    this.#requested.set(key, this.#signature(html, keyboard));
    if (this.#requested.size > REMEMBERED_MESSAGES) this.#requested.delete(this.#requested.keys().next().value!);
  }
}
