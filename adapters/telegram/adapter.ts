// The Telegram channel: a grammY Bot receiving updates by long polling (default) or webhook (served
// on the process's one HTTP listener), handing them to the core as Inbound messages and Actions,
// and sending replies through TelegramOutbound. Bot API calls that hit a rate limit are retried
// after `retry_after`.
import { autoRetry } from '@grammyjs/auto-retry';
import { Bot, type Transformer } from 'grammy';
import type { BotCommand, LanguageCode } from 'grammy/types';
import { answerOnce } from '../../src/core/ack.ts';
import { ChatOrder } from '../../src/core/chat-order.ts';
import { COMMANDS, type CommandInfo, commandDescription, ENTRY_COMMAND } from '../../src/core/commands.ts';
import { reportAttempt, reportRefusal } from '../../src/core/delivery-delays.ts';
import { LOCALES, type Locale, localeOrDefault, t } from '../../src/core/i18n/index.ts';
import { errorText } from '../../src/core/errors.ts';
import { holdUntilTaken } from '../../src/core/hold.ts';
import type {
  Attachment,
  AttachmentDownload,
  AttachmentFetchOptions,
  ChannelAdapter,
  ChannelCapabilities,
  ChatRef,
  CoreLogger,
  ExclusiveReceiver,
  HttpRoutes,
  InboundSink,
  OutboundMessage,
  SentRef,
} from '../../src/core/types.ts';
import { safeErrorMessage, TelegramApiError, toSafeError } from './api-errors.ts';
import type { TelegramConfig } from './config.ts';
import { fetchTelegramFile } from './files.ts';
import type { BotIdentity, ButtonPress, ClassifiedUpdate } from './inbound.ts';
import { TelegramOutbound } from './outbound.ts';
import { updateRouter } from './updates.ts';
import { webhookHandler } from './webhook.ts';

export interface TelegramAdapterOptions {
  config: TelegramConfig;
  log: CoreLogger;
  /** Instance id in session keys, refs and admin ids (default "telegram"); unique per process. */
  id?: string;
  /** How long start() keeps trying to reach Telegram (default 30 s). */
  startTimeoutMs?: number;
  /** The command menu (default: the core's COMMANDS). */
  commands?: readonly CommandInfo[];
}

/** What the bot asks Telegram for; everything else (edits, joins...) is not delivered at all. */
const ALLOWED_UPDATES = ['message', 'callback_query'] as const;
const TOAST_MAX_CHARS = 200;
const START_TIMEOUT_MS = 30_000;

/** Telegram's command menu in `locale`, from the core's registry and a project's own commands (Telegram opens every chat with /start). */
function menuCommands(commands: readonly CommandInfo[], locale: Locale): BotCommand[] {
  return [ENTRY_COMMAND, ...commands].map((c) => ({ command: c.name, description: commandDescription(c, locale) }));
}

interface Menu {
  languageCode?: string;
  commands: BotCommand[];
}

/**
 * The menus: English for everyone, and one per other locale for the users whose app is in that
 * language (setMyCommands' language_code is a two-letter ISO 639-1 code; `zh` covers every Chinese).
 */
function menusOf(commands: readonly CommandInfo[]): Menu[] {
  return [
    { commands: menuCommands(commands, 'en') },
    ...LOCALES.filter((locale) => locale !== 'en').map((locale) => ({
      languageCode: locale.slice(0, 2),
      commands: menuCommands(commands, locale),
    })),
  ];
}

/**
 * Waits out 429s (retry_after) and retries 5xx/network failures; typing pings are not worth a wait.
 * Each attempt, and each refused one (an error answer: nothing was sent), is reported to the sender
 * (core/delivery-delays.ts) before it is made and before the wait.
 */
function retryTransformer(): Transformer {
  const retry = autoRetry({ maxRetryAttempts: 5, maxDelaySeconds: 300 });
  const reported: Transformer = async (prev, method, payload, signal) => {
    await reportAttempt();
    const result = await prev(method, payload, signal);
    if (!result.ok) await reportRefusal();
    return result;
  };
  return (prev, method, payload, signal) =>
    method === 'sendChatAction' ? prev(method, payload, signal) : retry((m, p, s) => reported(prev, m, p, s), method, payload, signal);
}

function seconds(ms: number): string {
  return ms >= 1_000 ? `${Math.round(ms / 1_000)} s` : `${ms} ms`;
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export class TelegramAdapter implements ChannelAdapter {
  readonly id: string;
  readonly kind = 'telegram';
  readonly capabilities: ChannelCapabilities;
  readonly bot: Bot;
  readonly #config: TelegramConfig;
  readonly #log: CoreLogger;
  readonly #startTimeoutMs: number;
  readonly #menus: Menu[];
  readonly #outbound: TelegramOutbound;
  readonly #buttonPresses = new Set<Promise<void>>();
  /**
   * Long polling: the messages of the current batch being taken, side by side, one chat's in order.
   * The next getUpdates confirms this batch, so it waits for them: nothing is confirmed before it
   * is stored, and a batch of many chats does not wait for one database write after another.
   */
  readonly #takes = new ChatOrder();
  #sink: InboundSink | undefined;
  /** Aborted when long polling stops: ends the wait of an update held for a retry. */
  #pollingStopping: AbortController | undefined;
  #identity: BotIdentity | undefined;
  #polling: Promise<void> | undefined;
  /** Long polling is run by the core under the receiver lease (exclusiveReceiver() was called). */
  #pollingManaged = false;
  /** Where the webhook is served (webhook mode, once routes() ran): the listener's URL and the path. */
  #webhookAt: string | undefined;

  constructor(options: TelegramAdapterOptions) {
    this.id = options.id ?? 'telegram';
    this.#config = options.config;
    this.#log = options.log;
    this.#startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
    this.#menus = menusOf(options.commands ?? COMMANDS);
    this.capabilities = {
      maxTextLength: 4096,
      maxButtonPayload: 64,
      canEdit: true,
      canButtons: true,
      canEphemeral: false,
      hasThreads: true,
      hasTyping: true,
      repliesInDirect: false,
      editIntervalMs: { ...options.config.editIntervalMs },
    };
    this.bot = new Bot(options.config.token, { client: { apiRoot: options.config.apiRoot } });
    this.bot.api.config.use(retryTransformer());
    // The next getUpdates confirms the batch before it: it waits until the batch's messages are taken.
    this.bot.api.config.use(async (prev, method, payload, signal) => {
      if (method === 'getUpdates') await this.#takes.settled();
      return prev(method, payload, signal);
    });
    this.bot.use(
      updateRouter({
        identity: () => this.#identity,
        access: options.config,
        channel: this.id,
        handle: (update) => this.#onUpdate(update),
      }),
    );
    // Long polling: an update whose handling failed is logged and skipped.
    this.bot.catch((error) => this.#updateFailed(error.error));
    this.#outbound = new TelegramOutbound({ api: this.bot.api, channel: this.id, token: options.config.token, log: options.log });
  }

  /** The bot's own account, known once started. */
  get identity(): BotIdentity | undefined {
    return this.#identity;
  }

  /** Webhook mode: serve the webhook on the process's HTTP listener, at the path of TELEGRAM_WEBHOOK_URL. */
  routes(http: HttpRoutes): void {
    const mode = this.#config.mode;
    if (mode.kind !== 'webhook') return;
    const { secretToken, path } = mode;
    http.mount(
      path,
      webhookHandler({
        bot: this.bot,
        secretToken,
        path,
        log: this.#log,
        token: this.#config.token,
        running: () => this.#sink !== undefined,
      }),
    );
    this.#webhookAt = `${http.url}${path}`;
  }

  async start(sink: InboundSink): Promise<void> {
    const token = this.#config.token;
    const deadline = AbortSignal.timeout(this.#startTimeoutMs);
    // grammY types its signal parameter with its AbortController shim; Node's signal works as one.
    const me = await this.bot.api.getMe(deadline as unknown as Parameters<typeof this.bot.api.getMe>[0]).catch((error: unknown) => {
      throw this.#startError(error, deadline.aborted);
    });
    this.bot.botInfo = me;
    this.#identity = { id: me.id, username: me.username };
    this.#sink = sink;
    for (const menu of this.#menus) {
      await this.bot.api
        .setMyCommands(menu.commands, menu.languageCode ? { language_code: menu.languageCode as LanguageCode } : {})
        .catch((error: unknown) => {
          this.#log.warn(
            {},
            `could not register the command menu${menu.languageCode ? ` (${menu.languageCode})` : ''}: ${safeErrorMessage(error, token)}`,
          );
        });
    }
    const mode = this.#config.mode;
    if (mode.kind === 'webhook') {
      if (!this.#webhookAt) throw new TelegramApiError('webhook mode needs the HTTP listener (routes() was not called)');
      try {
        await this.bot.api.setWebhook(mode.url, { secret_token: mode.secretToken, allowed_updates: [...ALLOWED_UPDATES] });
      } catch (error) {
        this.#sink = undefined;
        throw toSafeError(error, token);
      }
      return;
    }
    if (!this.#pollingManaged) await this.#startPolling();
  }

  /** Long polling is the one receiver a bot token allows (a second poller gets 409 Conflict). */
  exclusiveReceiver(): ExclusiveReceiver | undefined {
    if (this.#config.mode.kind !== 'polling') return undefined;
    this.#pollingManaged = true;
    return { start: (onEnded) => this.#startPolling(onEnded), stop: () => this.#stopPolling() };
  }

  #startPolling(onEnded?: (error: unknown) => void): Promise<void> {
    const token = this.#config.token;
    return new Promise<void>((resolve, reject) => {
      this.#pollingStopping = new AbortController();
      this.#polling = this.bot.start({ allowed_updates: [...ALLOWED_UPDATES], onStart: () => resolve() }).catch((error: unknown) => {
        const safe = toSafeError(error, token);
        reject(safe);
        const hint = safe.code === 409 ? '; only one process may poll with a bot token (set TELEGRAM_WEBHOOK_URL to run several)' : '';
        this.#log.error({}, `Telegram long polling stopped: ${safe.message}${hint}`);
        onEnded?.(safe);
      });
    });
  }

  async #stopPolling(): Promise<void> {
    this.#pollingStopping?.abort();
    if (this.bot.isRunning()) {
      await this.bot
        .stop()
        .catch((error: unknown) => this.#log.warn({}, `stopping long polling: ${safeErrorMessage(error, this.#config.token)}`));
    }
    await this.#polling;
    this.#polling = undefined;
    await this.#takes.settled();
  }

  #updateFailed(error: unknown): void {
    this.#log.error({}, `handling a Telegram update failed: ${safeErrorMessage(error, this.#config.token)}`);
  }

  #startError(error: unknown, timedOut: boolean): TelegramApiError {
    const safe = toSafeError(error, this.#config.token);
    if (timedOut) {
      return new TelegramApiError(
        `could not reach the Telegram Bot API at ${this.#config.apiRoot} within ${seconds(this.#startTimeoutMs)}`,
      );
    }
    if (safe.code === 401 || safe.code === 404) {
      return new TelegramApiError(
        `Telegram did not accept TELEGRAM_BOT_TOKEN (${safe.message}); check the token from @BotFather`,
        safe.code,
      );
    }
    if (safe.code === undefined)
      return new TelegramApiError(`could not reach the Telegram Bot API at ${this.#config.apiRoot} (${safe.message})`);
    return safe;
  }

  async stop(): Promise<void> {
    // In webhook mode the webhook stays registered: Telegram keeps the updates that arrive while
    // no process listens (they get 503 here meanwhile), and other processes of this bot may still be serving it.
    if (this.#config.mode.kind === 'webhook') this.#sink = undefined;
    await this.#stopPolling();
    while (this.#buttonPresses.size > 0) await Promise.allSettled([...this.#buttonPresses]);
    this.#sink = undefined;
  }

  send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    return this.#outbound.send(chat, message);
  }

  edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    return this.#outbound.edit(ref, message);
  }

  typing(chat: ChatRef): Promise<void> {
    return this.#outbound.typing(chat);
  }

  mentionName(): string | undefined {
    return this.#identity?.username;
  }

  /** getFile, then the file server's download (files.ts); the ref is the file_id. */
  fetchAttachment(attachment: Attachment, options: AttachmentFetchOptions): Promise<AttachmentDownload> {
    return fetchTelegramFile({ api: this.bot.api, apiRoot: this.#config.apiRoot, token: this.#config.token }, attachment, options);
  }

  describe(): string[] {
    const who = this.#identity ? `telegram @${this.#identity.username}` : 'telegram';
    const mode = this.#config.mode;
    if (mode.kind === 'polling') return [`${who} (long polling)`];
    return [`${who} (webhook ${mode.url}${this.#webhookAt ? `, served at ${this.#webhookAt}` : ''})`];
  }

  async #onUpdate(update: ClassifiedUpdate): Promise<void> {
    const sink = this.#sink;
    if (!sink) return;
    switch (update.kind) {
      case 'malformed':
        this.#log.warn({}, `dropped a malformed Telegram update: ${update.reason}`);
        if (update.callbackQueryId) await this.#answer(update.callbackQueryId);
        return;
      case 'ignored':
        this.#log.debug({ reason: update.reason }, 'Telegram update ignored');
        if (update.callbackQueryId) await this.#answer(update.callbackQueryId);
        return;
      case 'message':
        // Errors propagate: the webhook answers 500 so Telegram resends. Long polling confirms an
        // update whatever its handling did, so there a retryable failure (the database is out of
        // reach) is retried first, holding the next getUpdates: nothing is confirmed before it is
        // stored. Held, not confirmed, while the core cannot take it (until polling stops). The
        // batch's other chats are taken meanwhile; one chat's messages in order.
        if (this.#config.mode.kind === 'polling') {
          const signal = this.#pollingStopping?.signal;
          const take = () =>
            holdUntilTaken(() => sink.onMessage(update.inbound), {
              signal,
              onWait: (error, wait) =>
                this.#log.warn(
                  {},
                  `a Telegram update could not be taken (${errorText(error)}); trying again in ${wait} ms before confirming it`,
                ),
            });
          this.#takes.run(update.inbound.chatId, take).catch((error: unknown) => this.#updateFailed(error));
        } else await sink.onMessage(update.inbound);
        return;
      case 'button': {
        // Deciding an approval edits messages (maybe waiting out a 429): only the decision, written
        // before the press is acknowledged, holds up the confirmation of the update (the next
        // getUpdates; the webhook's answer), so that a press is never confirmed before it is taken.
        const { work, acknowledged } = this.#press(sink, update.press);
        this.#buttonPresses.add(work);
        void work.finally(() => this.#buttonPresses.delete(work));
        if (this.#config.mode.kind === 'polling')
          this.#takes.run(update.press.chatId, () => acknowledged).catch((error: unknown) => this.#updateFailed(error));
        else await acknowledged;
        return;
      }
    }
  }

  /**
   * Hands a button press to the core; the query is answered exactly once, whatever happens.
   * `acknowledged` settles when the core acknowledges the press (it has decided, and stored, what
   * the press does) or when handling it ended.
   */
  #press(sink: InboundSink, press: ButtonPress): { work: Promise<void>; acknowledged: Promise<void> } {
    let markAcknowledged: () => void = () => {};
    const acknowledged = new Promise<void>((resolve) => (markAcknowledged = resolve));
    const work = this.#handlePress(sink, press, markAcknowledged).finally(markAcknowledged);
    return { work, acknowledged };
  }

  async #handlePress(sink: InboundSink, press: ButtonPress, acknowledged: () => void): Promise<void> {
    const { callbackQueryId, ...fields } = press;
    const once = answerOnce((toast) => this.#answer(callbackQueryId, toast));
    const ack = (toast?: string) => {
      acknowledged();
      return once.ack(toast);
    };
    try {
      await sink.onAction({ ...fields, reply: { ack, whisper: (text) => this.#whisper(fields, text) } });
    } catch (error) {
      this.#log.error({}, `handling a button press failed: ${safeErrorMessage(error, this.#config.token)}`);
      await ack(t(localeOrDefault(fields.locale), 'general.tryAgain'));
    } finally {
      await ack();
    }
  }

  /** After the ack a toast is no longer possible: the person gets a reply in the chat, addressed to them. */
  async #whisper(press: Omit<ButtonPress, 'callbackQueryId'>, text: string): Promise<void> {
    await this.#outbound.whisper(press, text);
  }

  async #answer(callbackQueryId: string, toast?: string): Promise<void> {
    try {
      await this.bot.api.answerCallbackQuery(callbackQueryId, toast ? { text: shorten(toast, TOAST_MAX_CHARS) } : {});
    } catch (error) {
      this.#log.warn({}, `could not answer a button press: ${safeErrorMessage(error, this.#config.token)}`);
    }
  }
}
