// The open-platform calls Parley makes, through the Lark SDK's Client: who the bot is, send or
// reply with a card, patch a card, read a message's sender. Every failure is a FeishuApiError.
import { Client, LoggerLevel } from '@larksuiteoapi/node-sdk';
import { z } from 'zod';
import type { CoreLogger } from '../../src/core/types.ts';
import type { FeishuConfig } from './config.ts';
import { checked, FeishuApiError, toFeishuError } from './errors.ts';
import { listOf, optional, optionalText } from './lenient.ts';
import type { FeishuCard } from './render.ts';
import { memoryCache, sdkLogger } from './sdk-support.ts';

const BotInfoSchema = z.object({
  code: z.number(),
  msg: optionalText,
  bot: optional(z.looseObject({ open_id: z.string().min(1), app_name: optionalText })),
});
const SentSchema = z.object({ message_id: z.string().min(1) });
const MessageGetSchema = z.looseObject({
  items: listOf(z.looseObject({ sender: optional(z.looseObject({ id: optionalText, id_type: optionalText, sender_type: optionalText })) })),
});

export class FeishuApi {
  readonly client: Client;
  readonly #secrets: string[];

  constructor(config: FeishuConfig, log: CoreLogger) {
    this.#secrets = [config.appSecret, config.verificationToken ?? '', config.encryptKey ?? ''];
    this.client = new Client({
      appId: config.appId,
      appSecret: config.appSecret,
      domain: config.baseUrl,
      cache: memoryCache(),
      logger: sdkLogger(log, this.#secrets),
      loggerLevel: LoggerLevel.warn,
    });
  }

  get secrets(): readonly string[] {
    return this.#secrets;
  }

  async #call<T>(what: string, run: () => Promise<unknown>): Promise<T> {
    let response: unknown;
    try {
      response = await run();
    } catch (error) {
      throw toFeishuError(what, error, this.#secrets);
    }
    return checked<T>(what, response, this.#secrets);
  }

  /** The bot's own open_id and name (needs the Bot capability). */
  async botInfo(): Promise<{ openId: string; name: string }> {
    let raw: unknown;
    try {
      raw = await this.client.request({ method: 'GET', url: '/open-apis/bot/v3/info' });
    } catch (error) {
      throw toFeishuError('reading the bot info', error, this.#secrets);
    }
    const parsed = BotInfoSchema.safeParse(raw);
    if (!parsed.success) throw new FeishuApiError('Feishu reading the bot info failed: unexpected answer', { kind: 'fatal' });
    if (parsed.data.code !== 0 || !parsed.data.bot) checked('reading the bot info', raw, this.#secrets);
    const bot = parsed.data.bot;
    if (!bot)
      throw new FeishuApiError('Feishu reading the bot info failed: no bot in the answer (enable the Bot capability)', {
        kind: 'forbidden',
      });
    return { openId: bot.open_id, name: bot.app_name ?? 'bot' };
  }

  /** `uuid`: Feishu makes at most one message per uuid within an hour; a repeat answers with that message. */
  async send(chatId: string, card: FeishuCard, uuid?: string): Promise<string> {
    const data = await this.#call<unknown>('sending a message', () =>
      this.client.im.v1.message.create({
        params: { receive_id_type: 'chat_id' },
        data: { receive_id: chatId, msg_type: 'interactive', content: JSON.stringify(card), ...(uuid ? { uuid } : {}) },
      }),
    );
    return SentSchema.parse(data).message_id;
  }

  async reply(messageId: string, card: FeishuCard, inThread: boolean, uuid?: string): Promise<string> {
    const data = await this.#call<unknown>('replying to a message', () =>
      this.client.im.v1.message.reply({
        path: { message_id: messageId },
        data: {
          msg_type: 'interactive',
          content: JSON.stringify(card),
          ...(inThread ? { reply_in_thread: true } : {}),
          ...(uuid ? { uuid } : {}),
        },
      }),
    );
    return SentSchema.parse(data).message_id;
  }

  async patch(messageId: string, card: FeishuCard): Promise<void> {
    await this.#call('updating a card', () =>
      this.client.im.v1.message.patch({ path: { message_id: messageId }, data: { content: JSON.stringify(card) } }),
    );
  }

  /** Whether a message was sent by this app (to recognise replies to the bot). */
  async sentByApp(messageId: string, appId: string): Promise<boolean> {
    const data = await this.#call<unknown>('reading a message', () => this.client.im.v1.message.get({ path: { message_id: messageId } }));
    const sender = MessageGetSchema.parse(data).items[0]?.sender;
    return sender?.sender_type === 'app' && sender.id === appId;
  }
}
