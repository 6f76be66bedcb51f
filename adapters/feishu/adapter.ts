// The Feishu / Lark channel on @larksuiteoapi/node-sdk: events and card callbacks arrive through
// one EventDispatcher, fed by the SDK's long connection (WSClient, default) or by the webhook
// route /feishu/events on the process's one HTTP host. Answers are cards, replied to the
// triggering message and updated in place while streaming. A topic (thread) is its own
// conversation: its id is the topic's root message, so anything for it is a reply in the topic.
import { EventDispatcher, LoggerLevel, type WSClient } from '@larksuiteoapi/node-sdk';
import type {
  Attachment,
  AttachmentDownload,
  AttachmentFetchOptions,
  ChannelAdapter,
  ChannelCapabilities,
  ChatRef,
  ChatType,
  CoreLogger,
  HttpRoutes,
  InboundSink,
  OutboundMessage,
  SentRef,
} from '../../src/core/types.ts';
import { errorText } from '../../src/core/errors.ts';
import { holdUntilTaken } from '../../src/core/hold.ts';
import { FeishuApi } from './api.ts';
import { uuidOf } from './idempotency.ts';
import { CardClicks, type Clicker } from './clicks.ts';
import type { FeishuConfig } from './config.ts';
import { EventNotTaken, FeishuApiError, toFeishuError } from './errors.ts';
import { fetchFeishuResource } from './files.ts';
import { classifyMessage, type BotIdentity } from './inbound.ts';
import { openLongConnection } from './long-connection.ts';
import { RecentKeys } from './recent-keys.ts';
import { Rejections } from './rejections.ts';
import { cardBytes, cardOf, type FeishuCard, MAX_CARD_BYTES, MAX_TEXT_CHARS, mentionCard } from './render.ts';
import { WEBHOOK_PATH, webhookApp } from './webhook.ts';

export interface FeishuAdapterOptions {
  config: FeishuConfig;
  log: CoreLogger;
  /** Instance id in session keys and admin ids (default "feishu"). */
  id?: string;
  /** How long a card click waits for the core's ack before it is answered anyway (Feishu allows 3 s). */
  clickDeadlineMs?: number;
  /** How long a message event may wait for the core before it is answered anyway. */
  eventDeadlineMs?: number;
}

const CLICK_DEADLINE_MS = 2_500;
const EVENT_DEADLINE_MS = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class FeishuAdapter implements ChannelAdapter {
  readonly id: string;
  readonly kind = 'feishu';
  readonly capabilities: ChannelCapabilities;
  /** Feishu (open.feishu.cn) serves mainland China; Lark and other hosts imply no language. */
  readonly usualLocale: string | undefined;
  readonly api: FeishuApi;
  readonly #config: FeishuConfig;
  readonly #log: CoreLogger;
  readonly #clicks: CardClicks;
  readonly #rejections: Rejections;
  readonly #events = new RecentKeys();
  readonly #ownMessages = new RecentKeys();
  readonly #chatTypes = new Map<string, ChatType>();
  readonly #work = new Set<Promise<unknown>>();
  readonly #eventDeadlineMs: number;
  /** Aborted at stop: messages held for the database give up. */
  readonly #stopHolds = new AbortController();
  #sink: InboundSink | undefined;
  #identity: BotIdentity | undefined;
  #ws: WSClient | undefined;
  #http: HttpRoutes | undefined;
  #unmount: (() => void) | undefined;

  constructor(options: FeishuAdapterOptions) {
    this.id = options.id ?? 'feishu';
    this.#config = options.config;
    this.usualLocale = options.config.domainName === 'feishu' ? 'zh-CN' : undefined;
    this.#log = options.log;
    this.#eventDeadlineMs = options.eventDeadlineMs ?? EVENT_DEADLINE_MS;
    this.capabilities = {
      maxTextLength: MAX_TEXT_CHARS,
      maxButtonPayload: 256,
      canEdit: true,
      canButtons: true,
      canEphemeral: false,
      hasThreads: true,
      hasTyping: false,
      repliesInDirect: true,
      idempotentSends: true,
      editIntervalMs: { ...options.config.editIntervalMs },
    };
    this.api = new FeishuApi(options.config, options.log);
    this.#rejections = new Rejections(this.#log);
    this.#clicks = new CardClicks({
      channel: this.id,
      log: this.#log,
      rejections: this.#rejections,
      sink: () => this.#sink,
      chatType: (chatId) => this.#chatTypes.get(chatId) ?? 'group',
      whisper: (to, text) => this.#whisper(to, text),
      track: (work) => this.#track(work),
      deadlineMs: options.clickDeadlineMs ?? CLICK_DEADLINE_MS,
    });
  }

  get identity(): BotIdentity | undefined {
    return this.#identity;
  }

  /** The dispatcher both transports feed. */
  readonly dispatcher: EventDispatcher = new EventDispatcher({ loggerLevel: LoggerLevel.warn }).register({
    'im.message.receive_v1': (data: unknown) => this.#onMessageEvent(data),
    'card.action.trigger': (data: unknown) => this.#clicks.handle(data),
  });

  /** Webhook mode: POST /feishu/events on the process's one HTTP host. */
  routes(http: HttpRoutes): void {
    if (this.#config.mode.kind !== 'webhook') return;
    this.#http = http;
    const app = webhookApp({
      dispatcher: this.dispatcher,
      verificationToken: this.#config.verificationToken ?? '',
      encryptKey: this.#config.encryptKey,
      maxAgeMs: this.#config.webhookMaxAgeMs,
      log: this.#log,
      ready: () => this.#sink !== undefined,
    });
    this.#unmount = http.mount('/feishu', app.fetch);
  }

  async start(sink: InboundSink): Promise<void> {
    if (this.#config.mode.kind === 'webhook' && !this.#http)
      throw new Error('feishu: webhook mode needs the HTTP host (routes() was not called)');
    try {
      this.#identity = await this.api.botInfo();
    } catch (error) {
      const safe = toFeishuError('start-up', error, this.api.secrets);
      if (safe.reason === 'auth')
        throw new FeishuApiError(`Feishu did not accept FEISHU_APP_ID / FEISHU_APP_SECRET: ${safe.message}`, {
          kind: 'auth',
          ...(safe.code !== undefined ? { code: safe.code } : {}),
        });
      if (safe.reason === 'transient')
        throw new FeishuApiError(`could not reach the Feishu open platform at ${this.#config.baseUrl} (${safe.message})`, {
          kind: 'transient',
        });
      throw safe;
    }
    this.#sink = sink;
    if (this.#config.mode.kind === 'webhook' && !this.#config.encryptKey)
      this.#log.warn(
        {},
        'Feishu webhook without FEISHU_ENCRYPT_KEY: requests are not signed, so anyone who has the verification token can post messages and button clicks as any user, admins included, and replay them at any time. Set an Encrypt Key (developer console: Events and callbacks > Encryption strategy) and FEISHU_ENCRYPT_KEY.',
      );
    if (this.#config.mode.kind === 'ws') this.#ws = await openLongConnection(this.#config, this.dispatcher, this.#log, this.api.secrets);
  }

  async stop(): Promise<void> {
    this.#stopHolds.abort();
    this.#ws?.close({ force: true });
    this.#ws = undefined;
    this.#unmount?.();
    this.#unmount = undefined;
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
    this.#sink = undefined;
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    const card = this.#card(message);
    const inThread = chat.threadId !== undefined;
    // A topic's id is its root message: a reply to it lands in the topic.
    const replyTo = message.replyToMessageId ?? chat.threadId;
    const uuid = message.idempotencyKey ? uuidOf(message.idempotencyKey) : undefined;
    const messageId = replyTo ? await this.api.reply(replyTo, card, inThread, uuid) : await this.api.send(chat.chatId, card, uuid);
    // A repeated send answers with the first message, which may show an earlier text.
    if (uuid && message.mayRepeat) await this.api.patch(messageId, card);
    this.#ownMessages.add(messageId);
    // Card callbacks name the chat but not its type.
    this.#chatTypes.set(chat.chatId, chat.chatType);
    return { channel: this.id, chatId: chat.chatId, messageId, ...(chat.threadId ? { threadId: chat.threadId } : {}) };
  }

  async edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    await this.api.patch(ref.messageId, this.#card(message));
  }

  /** The message resource named by the ref (files.ts). */
  fetchAttachment(attachment: Attachment, options: AttachmentFetchOptions): Promise<AttachmentDownload> {
    return fetchFeishuResource(this.api.client, attachment, options);
  }

  describe(): string[] {
    const who = this.#identity ? `feishu ${this.#identity.name} (${this.#identity.openId})` : 'feishu';
    const where = this.#config.domainName === 'custom' ? this.#config.baseUrl : this.#config.domainName;
    if (this.#config.mode.kind === 'ws') return [`${who} (long connection, ${where})`];
    return [`${who} (webhook at ${this.#http ? this.#http.url : ''}${WEBHOOK_PATH}, ${where})`];
  }

  #card(message: OutboundMessage): FeishuCard {
    return this.#checked(cardOf(message));
  }

  #checked(card: FeishuCard): FeishuCard {
    if (cardBytes(card) > MAX_CARD_BYTES)
      throw new FeishuApiError(`a card of ${cardBytes(card)} bytes is over Feishu's 30 KB limit`, { kind: 'too_large' });
    return card;
  }

  /** What the core tells one clicker after the answer: a reply to the clicked card, naming them in groups. */
  async #whisper(to: Clicker, text: string): Promise<void> {
    const card = this.#checked(mentionCard(to.chatType === 'group' ? to.openId : undefined, text));
    this.#ownMessages.add(await this.api.reply(to.messageId, card, false));
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
      this.#rejections.report('message event', data, classified.reason);
      return {};
    }
    if (classified.kind === 'ignored') {
      this.#log.debug({ reason: classified.reason }, 'Feishu message ignored');
      return {};
    }
    const { inbound, parentId } = classified;
    this.#chatTypes.set(inbound.chatId, inbound.chatType);
    const hold = { refused: false };
    const work = this.#track(
      (async () => {
        if (parentId && inbound.chatType === 'group' && !inbound.mentionsBot) inbound.repliesToBot = await this.#isOwnMessage(parentId);
        await holdUntilTaken(() => sink.onMessage(inbound), {
          signal: this.#stopHolds.signal,
          onWait: (error, wait) => {
            hold.refused = true;
            this.#log.warn({}, `a Feishu message could not be taken (${errorText(error)}); trying again in ${wait} ms`);
          },
        });
      })(),
    );
    // Not taken in the end: the next delivery of this event is taken afresh, not dropped as a repeat.
    work.catch((error: unknown) => {
      if (eventId) this.#events.delete(eventId);
      this.#log.error({}, `a Feishu message could not be taken: ${errorText(error)}`);
    });
    // Feishu pushes again after 3 s without an answer; the core's work goes on after that.
    const taken = await Promise.race([
      work.then(
        () => true,
        () => 'failed' as const,
      ),
      sleep(this.#eventDeadlineMs).then(() => false),
    ]);
    // Failed (logged once, above): not acknowledged, so Feishu pushes it again later.
    if (taken === 'failed') throw new EventNotTaken('the message could not be taken');
    // Still held (the database is out of reach): not acknowledged, so Feishu pushes it again later
    // (to this process, which takes it once, or to another if this one has died meanwhile).
    if (!taken && hold.refused) throw new EventNotTaken('the message is not stored yet; it is being tried again');
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
}
