// The chaos soak on Telegram: the fake Bot API (long polling; updates wait there while no process
// polls), private chats and groups where the bot is mentioned; the clicker clicks each prompt once
// (a callback query waits in getUpdates like any update).
import { FakeTelegram, type TgChat, type TgUser } from '../../test/fakes/telegram/index.ts';
import { APPROVAL_NEEDED, type SoakChat, type SoakPlatform } from './platform.ts';

interface TelegramChat extends SoakChat {
  user: TgUser;
  chat: TgChat;
  prefix: string;
}

export class TelegramSoak implements SoakPlatform<TelegramChat> {
  readonly name = 'Telegram';
  readonly #tg: FakeTelegram;
  readonly #chats: TelegramChat[] = [];
  readonly #clicked = new Set<string>();

  private constructor(tg: FakeTelegram) {
    this.#tg = tg;
  }

  static async start(): Promise<TelegramSoak> {
    return new TelegramSoak(await FakeTelegram.start());
  }

  env(): Record<string, string> {
    return {
      TELEGRAM_BOT_TOKEN: this.#tg.token,
      TELEGRAM_API_ROOT: this.#tg.apiRoot,
      TELEGRAM_EDIT_INTERVAL_PRIVATE: '300ms',
      TELEGRAM_EDIT_INTERVAL_GROUP: '600ms',
    };
  }

  chat(index: number, group: boolean): TelegramChat {
    const user = this.#tg.user(`Person${index}`);
    const chat: TelegramChat = group
      ? { label: `group ${index}`, user, chat: this.#tg.group(`Team ${index}`), prefix: `@${this.#tg.bot.username} ` }
      : { label: `private ${index}`, user, chat: this.#tg.privateChat(user), prefix: '' };
    this.#chats.push(chat);
    return chat;
  }

  say(chat: TelegramChat, text: string): void {
    this.#tg.say(chat.user, chat.chat, `${chat.prefix}${text}`);
  }

  texts(chat: TelegramChat): string[] {
    return this.#tg.botMessages(chat.chat).map((m) => m.message.text ?? '');
  }

  promptTexts(): string[] {
    return this.#tg
      .callsTo('sendMessage')
      .filter((c) => c.ok)
      .map((c) => String(c.params.text ?? ''))
      .filter((t) => t.includes(APPROVAL_NEEDED));
  }

  approve(): void {
    for (const chat of this.#chats) {
      for (const { message } of this.#tg.botMessages(chat.chat)) {
        const key = `${chat.chat.id}:${message.message_id}`;
        if (!message.reply_markup || this.#clicked.has(key) || !message.text?.includes(APPROVAL_NEEDED)) continue;
        this.#clicked.add(key);
        this.#tg.click(chat.user, chat.chat, message.message_id, 'Approve');
      }
    }
  }

  close(): Promise<void> {
    return this.#tg.close();
  }
}
