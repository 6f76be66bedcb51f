// A Bot API server on 127.0.0.1 for tests: the real grammY client talks to it through
// `client.apiRoot`. It answers like Telegram ({ok:true,result} / {ok:false,error_code,description,
// parameters}), with Telegram's HTTP statuses, and behaves like it where the adapter depends on it:
// getUpdates long polling with offset confirmation and conflicts, webhooks with the secret-token
// header, HTML entity parsing, the 4096-character limit, "message is not modified", keyboards
// dropped by edits that do not repeat them, no message_thread_id 1 (General) in forums, and
// callback queries answerable once. Tests inject updates and failures (error answers, dropped
// connections, slow answers, flood control with 429 retry_after), and read every call made.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TelegramFiles } from './files.ts';
import { EntityParseError } from './html.ts';
import { ApiFailure, MessageMethods, num } from './methods.ts';
import { FloodControl, type RateLimits } from './rate-limit.ts';
import {
  errors,
  type RecordedCall,
  type StoredMessage,
  type TgChat,
  type TgError,
  type TgMessage,
  type TgUpdate,
  type TgUser,
} from './types.ts';
import { deliveryError, type WebhookLastError, webhookErrorInfo } from './webhook-info.ts';
import { TelegramWorld, type Media, type SayOptions, type UserOptions } from './world.ts';

/** What happens to a faulted request: an error answer, no answer at all, or a late one. */
type FaultAction =
  | { kind: 'error'; error: TgError }
  /** The connection is closed without an answer, after the request took effect when `applied`. */
  | { kind: 'drop'; applied: boolean }
  | { kind: 'delay'; ms: number };

interface Fault {
  method: string;
  action: FaultAction;
  remaining: number;
  when?: (params: Record<string, unknown>) => boolean;
}

interface PollWaiter {
  wake(): void;
  fail(error: TgError): void;
}

export interface WebhookState {
  url: string;
  secret_token?: string;
  allowed_updates?: string[];
}

export interface WebhookDelivery {
  update_id: number;
  status: number;
}

export interface FaultOptions {
  times?: number;
  when?: (params: Record<string, unknown>) => boolean;
}

/** Telegram's default when allowed_updates is empty: everything but these. */
const OPT_IN_UPDATES = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);

function updateType(update: TgUpdate): string {
  return Object.keys(update).find((key) => key !== 'update_id') ?? 'unknown';
}

export class FakeTelegram {
  readonly world: TelegramWorld;
  readonly token: string;
  readonly calls: RecordedCall[] = [];
  readonly webhookDeliveries: WebhookDelivery[] = [];
  /** Files the fake holds: getFile and the /file/bot<token>/<path> downloads (files.ts). */
  readonly files = new TelegramFiles();
  /** Download paths requested from /file/bot<token>/..., in order (the token is not kept). */
  readonly downloads: string[] = [];
  webhook: WebhookState | undefined;
  /** What getWebhookInfo reports as the last failed delivery (set by failed deliveries, or by a test). */
  webhookLastError: WebhookLastError | undefined;
  readonly #methods: MessageMethods;
  readonly #server: Server;
  #port = 0;
  #faults: Fault[] = [];
  #flood: FloodControl | undefined;
  #allowedUpdates: string[] | undefined;
  #poller: PollWaiter | undefined;
  #delivering = false;
  #closed = false;

  private constructor(bot: TgUser) {
    this.world = new TelegramWorld(bot);
    this.#methods = new MessageMethods(this.world);
    this.token = `${bot.id}:AAFakeTokenForParleyTests_0123456789abc`;
    this.world.onUpdate = () => {
      this.#poller?.wake();
      void this.#pumpWebhook();
    };
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  static async start(options: { username?: string; firstName?: string; id?: number } = {}): Promise<FakeTelegram> {
    const fake = new FakeTelegram({
      id: options.id ?? 7_000_001,
      is_bot: true,
      first_name: options.firstName ?? 'Parley',
      username: options.username ?? 'parley_test_bot',
    });
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  /** For `new Bot(token, { client: { apiRoot } })` and TELEGRAM_API_ROOT. */
  get apiRoot(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get bot(): TgUser {
    return this.world.bot;
  }

  /** The command menu, as last set with setMyCommands. */
  /** The menu per language_code ('' for everyone). */
  get menus(): ReadonlyMap<string, { command: string; description: string }[]> {
    return this.#methods.menus;
  }

  get commands(): { command: string; description: string }[] | undefined {
    return this.#methods.commands;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#poller?.wake();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // ---- driving the fake from tests ---------------------------------------------------------

  user(firstName: string, options?: UserOptions): TgUser {
    return this.world.user(firstName, options);
  }

  privateChat(user: TgUser): TgChat {
    return this.world.privateChat(user);
  }

  group(title: string, options?: { forum?: boolean; supergroup?: boolean }): TgChat {
    return this.world.group(title, options);
  }

  createTopic(chat: TgChat, name: string, by: TgUser): number {
    return this.world.createTopic(chat, name, by);
  }

  say(from: TgUser, chat: TgChat, text: string, options?: SayOptions): { update: TgUpdate; message: TgMessage } {
    return this.world.say(from, chat, text, options);
  }

  sendMedia(from: TgUser, chat: TgChat, media: Media, caption?: string): { update: TgUpdate; message: TgMessage } {
    return this.world.sendMedia(from, chat, media, caption);
  }

  editByUser(chat: TgChat, messageId: number, text: string): TgUpdate {
    return this.world.editByUser(chat, messageId, text);
  }

  service(chat: TgChat, from: TgUser, fields: Pick<TgMessage, 'new_chat_members'>): TgUpdate {
    return this.world.service(chat, from, fields);
  }

  /** Presses a button; returns the callback query id. */
  click(from: TgUser, chat: TgChat, messageId: number, label: string): string {
    return this.world.click(from, chat, messageId, label);
  }

  /** Queues an arbitrary (possibly malformed) update; `update_id` is filled in. */
  injectRaw(body: Record<string, unknown>): number {
    return this.world.enqueue((update_id) => ({ ...body, update_id }) as TgUpdate).update_id;
  }

  /** Queues a callback query exactly as given, answerable like a click's; returns its update_id. */
  injectCallback(query: Record<string, unknown> & { id: string }): number {
    return this.world.injectCallback(query).update_id;
  }

  /** Delivers an already delivered update once more (its confirmation was lost). */
  redeliver(update: TgUpdate): void {
    this.world.redeliveries.push({ update: structuredClone(update), delivered: false });
    this.#poller?.wake();
    void this.#pumpWebhook();
  }

  /** The next `times` calls of `method` (matching `when`) fail with `error`. */
  failNext(method: string, error: TgError, options: FaultOptions = {}): void {
    this.#addFault(method, { kind: 'error', error }, options);
  }

  /** The next `times` calls of `method` get no answer: the connection closes (a lost response). */
  dropNext(method: string, options: FaultOptions & { applied?: boolean } = {}): void {
    this.#addFault(method, { kind: 'drop', applied: options.applied ?? false }, options);
  }

  /** The next `times` calls of `method` are answered `ms` late. */
  delayNext(method: string, ms: number, options: FaultOptions = {}): void {
    this.#addFault(method, { kind: 'delay', ms }, options);
  }

  /** Turns flood control on (or off with undefined); counts start afresh. */
  setRateLimits(limits: RateLimits | undefined): void {
    this.#flood = limits ? new FloodControl(limits) : undefined;
  }

  /** Requests refused with 429 by flood control so far. */
  get rateLimited(): number {
    return this.#flood?.refused ?? 0;
  }

  #addFault(method: string, action: FaultAction, options: FaultOptions): void {
    this.#faults.push({ method, action, remaining: options.times ?? 1, ...(options.when ? { when: options.when } : {}) });
  }

  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** The answers given to a callback query (Telegram accepts only the first). */
  answersTo(queryId: string): { text?: string; show_alert?: boolean }[] {
    return this.world.callbacks.get(queryId)?.answers ?? [];
  }

  messages(chat: TgChat): StoredMessage[] {
    return [...(this.world.state(chat.id)?.messages.values() ?? [])];
  }

  botMessages(chat: TgChat): StoredMessage[] {
    return this.messages(chat).filter((m) => m.message.from?.id === this.bot.id);
  }

  message(chat: TgChat, messageId: number): StoredMessage | undefined {
    return this.world.state(chat.id)?.messages.get(messageId);
  }

  // ---- HTTP ----------------------------------------------------------------------------------

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (file) {
      this.#download(res, file[1] ?? '', decodeURIComponent(file[2] ?? ''));
      return;
    }
    const route = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const body = await readBody(req);
    if (!route) return send(res, { error_code: 404, description: 'Not Found' });
    const [, token, method] = route as unknown as [string, string, string];
    let params: Record<string, unknown>;
    try {
      params = parseParams(url, req.headers['content-type'] ?? '', body);
    } catch {
      return send(res, errors.badRequest('invalid request body'));
    }
    const call: RecordedCall = { method, params, at: Date.now(), ok: true };
    this.calls.push(call);
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    let result: unknown;
    try {
      if (token !== this.token) throw new ApiFailure({ error_code: 401, description: 'Unauthorized' });
      const fault = this.#takeFault(method, params);
      if (fault?.kind === 'error') throw new ApiFailure(fault.error);
      if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
      const limited = this.#flood?.check(method, num(params.chat_id));
      if (limited) throw new ApiFailure(limited);
      if (fault?.kind === 'drop') {
        call.ok = false;
        if (fault.applied) await this.#dispatch(method, params, aborted.signal).catch(() => undefined);
        req.socket.destroy();
        return;
      }
      result = await this.#dispatch(method, params, aborted.signal);
    } catch (error) {
      const failure: TgError =
        error instanceof ApiFailure
          ? error.error
          : error instanceof EntityParseError
            ? { error_code: 400, description: error.message }
            : { error_code: 500, description: `Internal Server Error: ${String(error)}` };
      call.ok = false;
      call.error = failure;
      return send(res, failure);
    }
    if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
  }

  /** Telegram's file server: the bytes, or 404 with a Bot API error body (also for a wrong token). */
  #download(res: ServerResponse, token: string, path: string): void {
    this.downloads.push(path);
    const bytes = token === this.token ? this.files.download(path) : undefined;
    if (!bytes) {
      send(res, { error_code: 404, description: 'Not Found' });
      return;
    }
    // Telegram's file server labels by extension and falls back to application/octet-stream.
    const type = /\.(jpe?g)$/.test(path) ? 'image/jpeg' : /\.oga$/.test(path) ? 'audio/ogg' : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'content-length': String(bytes.length) }).end(bytes);
  }

  #takeFault(method: string, params: Record<string, unknown>): FaultAction | undefined {
    const fault = this.#faults.find((f) => f.method === method && f.remaining > 0 && (!f.when || f.when(params)));
    if (!fault) return undefined;
    fault.remaining--;
    this.#faults = this.#faults.filter((f) => f.remaining > 0);
    return fault.action;
  }

  async #dispatch(method: string, p: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    switch (method) {
      case 'getMe':
        return {
          ...this.bot,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
          can_connect_to_business: false,
        };
      case 'getUpdates':
        return this.#getUpdates(p, signal);
      case 'setWebhook':
        return this.#setWebhook(p);
      case 'deleteWebhook':
        if (p.drop_pending_updates === true) this.world.queue = [];
        this.webhook = undefined;
        return true;
      case 'getWebhookInfo':
        return {
          url: this.webhook?.url ?? '',
          has_custom_certificate: false,
          pending_update_count: this.world.queue.length,
          ...webhookErrorInfo(this.webhookLastError),
        };
      case 'sendMessage':
        return this.#methods.sendMessage(p);
      case 'editMessageText':
        return this.#methods.editMessageText(p);
      case 'editMessageReplyMarkup':
        return this.#methods.editMessageReplyMarkup(p);
      case 'answerCallbackQuery':
        return this.#methods.answerCallbackQuery(p);
      case 'sendChatAction':
        return this.#methods.sendChatAction(p);
      case 'setMyCommands':
        return this.#methods.setMyCommands(p);
      case 'getFile':
        return this.files.getFile(p);
      default:
        throw new ApiFailure({ error_code: 404, description: 'Not Found' });
    }
  }

  // ---- updates -------------------------------------------------------------------------------

  #deliverable(update: TgUpdate): boolean {
    const type = updateType(update);
    const allowed = this.#allowedUpdates;
    return allowed && allowed.length > 0 ? allowed.includes(type) : !OPT_IN_UPDATES.has(type);
  }

  async #getUpdates(p: Record<string, unknown>, signal: AbortSignal): Promise<TgUpdate[]> {
    if (this.webhook) {
      throw new ApiFailure({
        error_code: 409,
        description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      });
    }
    if (Array.isArray(p.allowed_updates)) this.#allowedUpdates = p.allowed_updates.map(String);
    const offset = num(p.offset) ?? 0;
    if (offset > 0) this.world.queue = this.world.queue.filter((u) => u.update_id >= offset);
    this.world.redeliveries = this.world.redeliveries.filter((r) => !r.delivered);
    const limit = Math.min(100, Math.max(1, num(p.limit) ?? 100));
    const timeoutMs = Math.max(0, num(p.timeout) ?? 0) * 1000;
    this.#poller?.fail({
      error_code: 409,
      description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
    });

    const take = (): TgUpdate[] => {
      this.world.queue = this.world.queue.filter((u) => this.#deliverable(u));
      const again = this.world.redeliveries.filter((r) => !r.delivered).slice(0, limit);
      for (const entry of again) entry.delivered = true;
      const fresh = this.world.queue.filter((u) => u.update_id >= offset);
      return [...again.map((r) => r.update), ...fresh].slice(0, limit).map((u) => structuredClone(u));
    };
    const ready = take();
    if (ready.length > 0 || timeoutMs === 0 || this.#closed) return ready;

    await new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.#poller === waiter) this.#poller = undefined;
      };
      const waiter: PollWaiter = {
        wake: () => {
          done();
          resolve();
        },
        fail: (error) => {
          done();
          reject(new ApiFailure(error));
        },
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      signal.addEventListener('abort', waiter.wake);
      this.#poller = waiter;
    });
    return signal.aborted ? [] : take();
  }

  #setWebhook(p: Record<string, unknown>): true {
    const url = typeof p.url === 'string' ? p.url : '';
    if (url === '') {
      this.webhook = undefined;
      return true;
    }
    // Real Telegram insists on HTTPS on ports 443/80/88/8443; the fake delivers to local http too.
    if (!/^https?:\/\//.test(url)) throw new ApiFailure(errors.badRequest('bad webhook: An HTTPS URL must be provided for webhook'));
    const secret = p.secret_token;
    if (secret !== undefined && (typeof secret !== 'string' || !/^[A-Za-z0-9_-]{1,256}$/.test(secret))) {
      throw new ApiFailure(errors.badRequest('secret token contains unallowed characters'));
    }
    if (p.drop_pending_updates === true) this.world.queue = [];
    if (Array.isArray(p.allowed_updates)) this.#allowedUpdates = p.allowed_updates.map(String);
    this.webhook = {
      url,
      ...(typeof secret === 'string' ? { secret_token: secret } : {}),
      ...(this.#allowedUpdates ? { allowed_updates: this.#allowedUpdates } : {}),
    };
    this.#poller?.fail({ error_code: 409, description: 'Conflict: terminated by setWebhook request' });
    void this.#pumpWebhook();
    return true;
  }

  /** Posts queued updates to the webhook one at a time, like Telegram (retrying failures a few times). */
  async #pumpWebhook(): Promise<void> {
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      let attempts = 0;
      while (this.webhook && !this.#closed) {
        this.world.queue = this.world.queue.filter((u) => this.#deliverable(u));
        const again = this.world.redeliveries[0];
        const update = again?.update ?? this.world.queue[0];
        if (!update) break;
        const hook = this.webhook;
        let status = 0;
        try {
          const response = await fetch(hook.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(hook.secret_token ? { 'x-telegram-bot-api-secret-token': hook.secret_token } : {}),
            },
            body: JSON.stringify(update),
          });
          status = response.status;
          await response.arrayBuffer();
        } catch {
          status = 0;
        }
        this.webhookDeliveries.push({ update_id: update.update_id, status });
        if (status < 200 || status >= 300) this.webhookLastError = deliveryError(status);
        attempts++;
        if ((status >= 200 && status < 300) || attempts >= 3) {
          if (again) this.world.redeliveries.shift();
          else this.world.queue.shift();
          attempts = 0;
        } else {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    } finally {
      this.#delivering = false;
    }
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Bot API parameters come as JSON, a form, or the query string; JSON-encoded values are decoded. */
function parseParams(url: URL, contentType: string, body: string): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  const decode = (value: string): unknown => {
    if (/^[[{]/.test(value)) return JSON.parse(value);
    if (value === 'true' || value === 'false') return value === 'true';
    return value;
  };
  for (const [key, value] of url.searchParams) params[key] = decode(value);
  if (contentType.includes('application/json') && body.trim()) Object.assign(params, JSON.parse(body) as Record<string, unknown>);
  else if (contentType.includes('application/x-www-form-urlencoded')) {
    for (const [key, value] of new URLSearchParams(body)) params[key] = decode(value);
  }
  return params;
}

function send(res: ServerResponse, error: TgError): void {
  if (res.destroyed) return;
  res.writeHead(error.error_code >= 400 && error.error_code < 600 ? error.error_code : 400, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      ok: false,
      error_code: error.error_code,
      description: error.description,
      ...(error.parameters ? { parameters: error.parameters } : {}),
    }),
  );
}
