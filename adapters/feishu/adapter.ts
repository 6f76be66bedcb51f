// The Feishu / Lark channel on @larksuiteoapi/node-sdk: events and card callbacks arrive through
// one EventDispatcher, fed by the SDK's long connection (WSClient, default) or by a webhook.
// Answers are cards, replied to the triggering message and updated in place while streaming.
import { EventDispatcher, LoggerLevel, WSClient } from '@larksuiteoapi/node-sdk';
import { answerOnce } from '../../src/core/ack.ts';
import type { ChannelAdapter, ChannelCapabilities, ChatRef, ChatType, CoreLogger, InboundSink, OutboundMessage, SentRef } from '../../src/core/types.ts';
import { FeishuApi } from './api.ts';
import { PendingClicks, RecentKeys } from './callbacks.ts';
import type { FeishuConfig } from './config.ts';
import { FeishuApiError, toFeishuError } from './errors.ts';
import { classifyMessage, type BotIdentity } from './inbound.ts';
import { ButtonValueSchema, CardActionEventSchema } from './payloads.ts';
import { cardBytes, cardOf, MAX_CARD_BYTES, MAX_TEXT_CHARS } from './render.ts';
import { sdkLogger } from './sdk-support.ts';
import { startWebhookServer, type WebhookServer } from './webhook.ts';

export interface FeishuAdapterOptions {
  config: FeishuConfig;
  log: CoreLogger;
  id?: string;
  /** How long a card click may wait for the core's decision before it is answered anyway (Feishu allows 3 s). */
  clickDeadlineMs?: number;
  /** How long a message event may wait for the core before it is answered anyway. */
  eventDeadlineMs?: number;
}

const CLICK_DEADLINE_MS = 2_500;
const EVENT_DEADLINE_MS = 2_000;
const START_TIMEOUT_MS = 30_000;
const TOAST_MAX_CHARS = 200;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class FeishuAdapter implements ChannelAdapter {
  readonly id: string;
  readonly kind = 'feishu';
  readonly capabilities: ChannelCapabilities;
  readonly api: FeishuApi;
  readonly #config: FeishuConfig;
  readonly #log: CoreLogger;
  readonly #clicks = new PendingClicks();
  readonly #events = new RecentKeys();
  readonly #ownMessages = new RecentKeys();
  readonly #chatTypes = new Map<string, ChatType>();
  readonly #work = new Set<Promise<unknown>>();
  readonly #clickDeadlineMs: number;
  readonly #eventDeadlineMs: number;
  #sink: InboundSink | undefined;
  #identity: BotIdentity | undefined;
  #ws: WSClient | undefined;
  #webhook: WebhookServer | undefined;

  constructor(options: FeishuAdapterOptions) {
    this.id = options.id ?? 'feishu';
    this.#config = options.config;
    this.#log = options.log;
    this.#clickDeadlineMs = options.clickDeadlineMs ?? CLICK_DEADLINE_MS;
    this.#eventDeadlineMs = options.eventDeadlineMs ?? EVENT_DEADLINE_MS;
    this.capabilities = {
      maxTextLength: MAX_TEXT_CHARS,
      maxButtonPayload: 256,
      canEdit: true,
      canButtons: true,
      canEphemeral: false,
      hasThreads: true,
      hasTyping: false,
      editIntervalMs: { ...options.config.editIntervalMs },
    };
    this.api = new FeishuApi(options.config, options.log);
  }

  get identity(): BotIdentity | undefined {
    return this.#identity;
  }

  get webhookAddress(): { host: string; port: number } | undefined {
    return this.#webhook?.address;
  }

  /** The dispatcher both transports feed; exposed for the shared HTTP host. */
  readonly dispatcher: EventDispatcher = new EventDispatcher({ loggerLevel: LoggerLevel.warn }).register({
    'im.message.receive_v1': (data: unknown) => this.#onMessageEvent(data),
    'card.action.trigger': (data: unknown) => this.#onCardAction(data),
  });

  async start(sink: InboundSink): Promise<void> {
    try {
      this.#identity = await this.api.botInfo();
    } catch (error) {
      const safe = toFeishuError('start-up', error, this.api.secrets);
      if (safe.kind === 'auth') throw new FeishuApiError(`Feishu did not accept FEISHU_APP_ID / FEISHU_APP_SECRET: ${safe.message}`, { kind: 'auth', ...(safe.code !== undefined ? { code: safe.code } : {}) });
      if (safe.kind === 'transient') throw new FeishuApiError(`could not reach the Feishu open platform at ${this.#config.baseUrl} (${safe.message})`, { kind: 'transient' });
      throw safe;
    }
    this.#sink = sink;
    const mode = this.#config.mode;
    if (mode.kind === 'webhook') {
      this.#webhook = await startWebhookServer({
        dispatcher: this.dispatcher,
        verificationToken: this.#config.verificationToken ?? '',
        encryptKey: this.#config.encryptKey,
        log: this.#log,
        host: mode.host,
        port: mode.port,
        path: mode.path,
      });
      return;
    }
    await this.#startLongConnection();
  }

  async #startLongConnection(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new FeishuApiError(`could not open the Feishu long connection at ${this.#config.baseUrl} within 30 s`, { kind: 'transient' })), START_TIMEOUT_MS);
      timer.unref();
      this.#ws = new WSClient({
        appId: this.#config.appId,
        appSecret: this.#config.appSecret,
        domain: this.#config.baseUrl,
        logger: sdkLogger(this.#log, this.api.secrets),
        loggerLevel: LoggerLevel.warn,
        autoReconnect: true,
        onReady: () => {
          clearTimeout(timer);
          resolve();
        },
        onError: (error: Error) => {
          clearTimeout(timer);
          reject(new FeishuApiError(`the Feishu long connection was refused: ${error.message} (check FEISHU_APP_ID / FEISHU_APP_SECRET, and enable "Receive events through persistent connection" under Events and callbacks)`, { kind: 'auth' }));
        },
        onReconnected: () => this.#log.info({}, 'Feishu long connection restored'),
        onReconnecting: () => this.#log.warn({}, 'Feishu long connection lost; reconnecting'),
      });
      void this.#ws.start({ eventDispatcher: this.dispatcher });
    }).catch((error: unknown) => {
      this.#ws?.close({ force: true });
      this.#ws = undefined;
      throw error;
    });
  }

  async stop(): Promise<void> {
    this.#ws?.close({ force: true });
    this.#ws = undefined;
    await this.#webhook?.close();
    this.#webhook = undefined;
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
    this.#sink = undefined;
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    const card = this.#card(message);
    const messageId = message.replyToMessageId
      ? await this.api.reply(message.replyToMessageId, card, chat.threadId !== undefined)
      : await this.api.send(chat.chatId, card);
    this.#ownMessages.add(messageId);
    return { channel: this.id, chatId: chat.chatId, messageId, ...(chat.threadId ? { threadId: chat.threadId } : {}) };
  }

  async edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    const card = this.#card(message);
    if (this.#clicks.takeEdit(ref.messageId, card)) return;
    await this.api.patch(ref.messageId, card);
  }

  /** Feishu has no typing indicator for bots. */
  async typing(): Promise<void> {}

  describe(): string[] {
    const who = this.#identity ? `feishu ${this.#identity.name} (${this.#identity.openId})` : 'feishu';
    const where = this.#config.domainName === 'custom' ? this.#config.baseUrl : this.#config.domainName;
    const mode = this.#config.mode;
    if (mode.kind === 'ws') return [`${who} (long connection, ${where})`];
    const listening = this.#webhook ? `${this.#webhook.address.host}:${this.#webhook.address.port}${mode.path}` : mode.path;
    return [`${who} (webhook at ${listening}, ${where})`];
  }

  #card(message: OutboundMessage) {
    const card = cardOf(message);
    if (cardBytes(card) > MAX_CARD_BYTES) throw new FeishuApiError(`a card of ${cardBytes(card)} bytes is over Feishu's 30 KB limit`, { kind: 'too_large' });
    return card;
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#work.add(work);
    void work.finally(() => this.#work.delete(work)).catch(() => {});
    return work;
  }

  async #onMessageEvent(data: unknown): Promise<object> {
    const sink = this.#sink;
    const identity = this.#identity;
    if (!sink || !identity) throw new Error('not started');
    const eventId = typeof (data as { event_id?: unknown }).event_id === 'string' ? (data as { event_id: string }).event_id : undefined;
    if (eventId && !this.#events.add(eventId)) {
      this.#log.debug({ eventId }, 'Feishu event delivered again; ignored');
      return {};
    }
    const classified = classifyMessage(data, identity, this.id);
    if (classified.kind === 'malformed') {
      this.#log.warn({}, `dropped a malformed Feishu message event: ${classified.reason}`);
      return {};
    }
    if (classified.kind === 'ignored') {
      this.#log.debug({ reason: classified.reason }, 'Feishu message ignored');
      return {};
    }
    const { inbound, parentId } = classified;
    this.#chatTypes.set(inbound.chatId, inbound.chatType);
    const work = this.#track(
      (async () => {
        if (parentId && inbound.chatType === 'group' && !inbound.mentionsBot) inbound.repliesToBot = await this.#isOwnMessage(parentId);
        await sink.onMessage(inbound);
      })(),
    );
    // Feishu pushes again after 3 s without an answer; the core's work goes on after that.
    await Promise.race([work, sleep(this.#eventDeadlineMs)]);
    return {};
  }

  async #isOwnMessage(messageId: string): Promise<boolean> {
    if (this.#ownMessages.has(messageId)) return true;
    try {
      const mine = await this.api.sentByApp(messageId, this.#config.appId);
      if (mine) this.#ownMessages.add(messageId);
      return mine;
    } catch (error) {
      this.#log.warn({}, `could not tell whether a replied-to message is mine: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  async #onCardAction(data: unknown): Promise<object> {
    const sink = this.#sink;
    const parsed = CardActionEventSchema.safeParse(data);
    const value = parsed.success ? ButtonValueSchema.safeParse(parsed.data.action.value) : undefined;
    if (!sink || !parsed.success || !value?.success) {
      this.#log.warn({}, 'dropped a Feishu card callback Parley cannot read');
      return toastOf('This button is no longer active.');
    }
    const event = parsed.data;
    const messageId = event.context.open_message_id;
    const click = this.#clicks.open(messageId);
    let toast: string | undefined;
    let answered!: () => void;
    const acked = new Promise<void>((resolve) => (answered = resolve));
    const { ack } = answerOnce(async (text) => {
      toast = text;
      answered();
    });
    const chatId = event.context.open_chat_id;
    this.#track(
      sink
        .onAction({
          channel: this.id,
          chatId,
          chatType: this.#chatTypes.get(chatId) ?? 'group',
          messageId,
          userId: event.operator.open_id,
          displayName: event.operator.name ?? event.operator.open_id,
          payload: value.data.p,
          // After the ack a toast is no longer possible: a message in the chat instead.
          reply: { ack, whisper: async (text) => void (await this.send({ channel: this.id, chatId, chatType: this.#chatTypes.get(chatId) ?? 'group' }, { text })) },
        })
        .catch(async (error: unknown) => {
          this.#log.error({}, `handling a card click failed: ${error instanceof Error ? error.message : String(error)}`);
          await ack('Something went wrong; please try again.');
        })
        .finally(() => ack()),
    );
    await Promise.race([acked, sleep(this.#clickDeadlineMs)]);
    this.#clicks.close(click);
    if (toast === undefined && !click.card) this.#log.warn({}, 'a card click was answered before the core decided (slow database?)');
    return { ...toastOf(toast), ...(click.card ? { card: { type: 'raw', data: click.card } } : {}) };
  }
}

function toastOf(text: string | undefined): object {
  if (!text) return {};
  return { toast: { type: 'info', content: text.length > TOAST_MAX_CHARS ? `${text.slice(0, TOAST_MAX_CHARS - 1)}…` : text } };
}
