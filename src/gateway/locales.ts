// Which language the bot writes its own texts in, per message and per button press. PARLEY_LOCALE
// fixes it; in `auto`: the language the platform reports for the person (Telegram's language_code,
// a Discord interaction's locale, the browser's Accept-Language), else the language the message is
// written in (its script: Feishu and Discord messages carry no language), else the chat's last
// one, else the channel's usual language (Feishu's China domain), else English. The chat's last language is kept in this process (bounded); what a turn
// writes later (its approval prompts, an answer owed after a restart) uses the locale stored with
// the turn (TurnOrigin.locale), in any process.
import { DEFAULT_LOCALE, type Locale, type LocaleSetting, localeOf, scriptLocaleOf } from '../core/i18n/index.ts';
import type { ChatRef } from '../core/types.ts';

const MAX_CHATS = 10_000;

type ChatPlace = Pick<ChatRef, 'channel' | 'chatId'>;

export class ChatLocales {
  readonly #setting: LocaleSetting;
  readonly #max: number;
  /** channel + chat → the last locale resolved there, in least-recently-used order. */
  readonly #last = new Map<string, Locale>();

  constructor(setting: LocaleSetting, maxChats = MAX_CHATS) {
    this.#setting = setting;
    this.#max = maxChats;
  }

  /**
   * The locale of a message's answers and notices (remembered as the chat's). `usual`: the
   * channel's usual language (ChannelAdapter.usualLocale), the last resort before English.
   */
  forMessage(message: ChatPlace & { locale?: string; text: string }, usual?: string): Locale {
    if (this.#setting !== 'auto') return this.#setting;
    const locale = localeOf(message.locale) ?? scriptLocaleOf(message.text) ?? this.#recall(message) ?? localeOf(usual) ?? DEFAULT_LOCALE;
    this.#remember(message, locale);
    return locale;
  }

  /**
   * The locale of what the person who pressed a button is told, when something tells it (the
   * platform, the chat's last message); undefined otherwise (the approval's turn then decides).
   */
  forPress(press: ChatPlace & { locale?: string }, usual?: string): Locale | undefined {
    if (this.#setting !== 'auto') return this.#setting;
    return localeOf(press.locale) ?? this.#recall(press) ?? localeOf(usual);
  }

  /** The chat's last locale (for a text that belongs to no message or turn). */
  forChat(chat: ChatPlace): Locale {
    if (this.#setting !== 'auto') return this.#setting;
    return this.#recall(chat) ?? DEFAULT_LOCALE;
  }

  #recall(chat: ChatPlace): Locale | undefined {
    return this.#last.get(keyOf(chat));
  }

  #remember(chat: ChatPlace, locale: Locale): void {
    const key = keyOf(chat);
    this.#last.delete(key);
    this.#last.set(key, locale);
    if (this.#last.size > this.#max) this.#last.delete(this.#last.keys().next().value!);
  }
}

function keyOf(chat: ChatPlace): string {
  return `${chat.channel}\u0000${chat.chatId}`;
}
