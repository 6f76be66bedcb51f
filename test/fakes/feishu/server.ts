// A wire-level fake of the Feishu / Lark open platform for the real Lark SDK: tenant token, bot
// info, send / reply / get / patch messages (strict on JSON-string content and the 30 KB card
// limit), the long-connection endpoint with protobuf frames, and an event pusher that delivers
// schema 2.0 events and card callbacks by webhook or long connection and pushes again when the
// answer is late or not 200.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { encrypt, sign } from './crypto.ts';
import { type ClickEventPayload, clickEventOf, type MessageEventPayload, messageEventOf, overLongConnection } from './events.ts';
import { decodeFrame, encodeFrame, headerOf, type Frame } from './frames.ts';
import { FeishuResources } from './resources.ts';
import {
  type Card,
  type CardButton,
  CardSchema,
  ClickContextSchema,
  type EventAnswer,
  EventAnswerSchema,
  FrameAckSchema,
  isCard,
  type MessageContent,
  parseJson,
  TextContentSchema,
} from './wire.ts';

export interface FeishuUser {
  openId: string;
  name: string;
}
export interface FeishuChat {
  id: string;
  type: 'p2p' | 'group';
}
export interface StoredMessage {
  id: string;
  chatId: string;
  msgType: string;
  /** Parsed content (a card for interactive messages). */
  content: MessageContent;
  versions: MessageContent[];
  parentId?: string;
  /** The topic (thread) the message is in, e.g. a reply with reply_in_thread. */
  threadId?: string;
  fromBot: boolean;
  senderId: string;
}
/** What a person sends that carries a file (resources.ts has the content shapes). */
export type FeishuMedia =
  | { image: { bytes: Buffer; mimeType: string } }
  | { file: { bytes: Buffer; mimeType: string; name: string } }
  | { audio: { bytes: Buffer; durationMs: number } }
  /** A rich-text post: an image, then a line of text (the caption). */
  | { post: { text: string; image: { bytes: Buffer; mimeType: string; width: number; height: number } } }
  /** A file Feishu holds but will not hand out (over 100 MB); no real bytes. */
  | { hugeFile: { name: string; size: number } };

export interface ApiCall {
  method: string;
  path: string;
  status: number;
  code: number;
}
/** A schema 2.0 event or card callback as pushed (the fields the fake itself reads). */
export interface PushedEvent {
  header: { event_id: string; event_type: string };
  event: unknown;
}
export interface Delivery {
  eventId: string;
  attempt: number;
  status: number;
  /** The bot's answer, when it was one (a JSON object with a well-formed toast and card, if any). */
  body: EventAnswer | undefined;
  ms: number;
}

const CARD_LIMIT = 30 * 1024;
const TEXT_LIMIT = 150 * 1024;
const PUSH_TIMEOUT_MS = 3_000;
/** Message create and reply: `uuid` (≤ 50 characters) de-duplicates requests for an hour. */
const UUID_MAX_LENGTH = 50;
const UUID_WINDOW_MS = 3_600_000;

let counter = 0;
const id = (prefix: string) => `${prefix}_${(++counter).toString(16).padStart(6, '0')}${randomUUID().replace(/-/g, '').slice(0, 18)}`;

/** `ws` sends binary frames for a Uint8Array (the ambient typing in test/fakes/discord knows only strings). */
function sendBinary(socket: WebSocket, data: Uint8Array): void {
  (socket as unknown as { send(data: Uint8Array): void }).send(data);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const RequestBodySchema = z.record(z.string(), z.unknown());

export interface FakeFeishuOptions {
  appId?: string;
  appSecret?: string;
  botName?: string;
}

export class FakeFeishu {
  readonly appId: string;
  readonly appSecret: string;
  readonly botOpenId = id('ou');
  readonly botName: string;
  readonly tenantKey = randomUUID().replace(/-/g, '').slice(0, 16);
  readonly messages = new Map<string, StoredMessage>();
  /** Files in messages, served at im/v1/messages/:id/resources/:key (resources.ts). */
  readonly resources = new FeishuResources();
  readonly calls: ApiCall[] = [];
  readonly deliveries: Delivery[] = [];
  readonly toasts: { eventId: string; toast: NonNullable<EventAnswer['toast']> }[] = [];
  /** Delay for answers to message updates (PATCH/PUT), to play a slow platform. */
  slowUpdatesMs = 0;
  /** Where events go in webhook mode. */
  webhookUrl: string | undefined;
  verificationToken = 'fake-verification-token';
  encryptKey: string | undefined;
  /** Long-connection clients refused at the endpoint when false. */
  wsEnabled = true;
  /** Long connections opened so far (a reconnect adds one). */
  wsConnections = 0;
  /** Cut the long connection right after writing the next event frame, before its ack can arrive. */
  cutAfterNextFrame = false;
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #tokens = new Set<string>();
  #socket: WebSocket | undefined;
  readonly #acks = new Map<string, (payload: unknown) => void>();
  /** Sends by `uuid`: Feishu makes at most one message per uuid within an hour, and answers a repeat with it. */
  readonly #byUuid = new Map<string, { messageId: string; at: number }>();
  readonly #waitingForSocket: (() => void)[] = [];
  #port = 0;

  private constructor(options: FakeFeishuOptions) {
    this.appId = options.appId ?? 'cli_a1b2c3d4e5f60718';
    this.appSecret = options.appSecret ?? 'fake-app-secret-0123456789';
    this.botName = options.botName ?? 'Parley';
    this.#server = createServer((req, res) => void this.#route(req, res));
    this.#wss = new WebSocketServer({ server: this.#server, path: '/ws' });
    this.#wss.on('connection', (ws: WebSocket) => this.#onSocket(ws));
  }

  static async start(options: FakeFeishuOptions = {}): Promise<FakeFeishu> {
    const fake = new FakeFeishu(options);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get wsConnected(): boolean {
    return this.#socket !== undefined;
  }

  async close(): Promise<void> {
    for (const client of this.#wss.clients) client.terminate();
    this.#wss.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // ---- the people and chats of the world -------------------------------------------------

  user(name: string): FeishuUser {
    return { openId: id('ou'), name };
  }
  p2p(): FeishuChat {
    return { id: id('oc'), type: 'p2p' };
  }
  group(): FeishuChat {
    return { id: id('oc'), type: 'group' };
  }

  botMessages(chat: FeishuChat): StoredMessage[] {
    return [...this.messages.values()].filter((m) => m.chatId === chat.id && m.fromBot);
  }

  /** The markdown text of a bot card (all markdown elements). */
  static textOf(message: StoredMessage): string {
    const elements = isCard(message.content) ? message.content.elements : [];
    return elements
      .filter((e) => e.tag === 'markdown')
      .map((e) => e.content ?? '')
      .join('\n');
  }
  static buttonsOf(message: StoredMessage): CardButton[] {
    const elements = isCard(message.content) ? message.content.elements : [];
    return elements.filter((e) => e.tag === 'action').flatMap((e) => e.actions ?? []);
  }

  // ---- events ------------------------------------------------------------------------------

  /** A person writes in a chat; `mention` adds @mentions (use `fake.bot` for the bot). */
  messageEvent(
    from: FeishuUser,
    chat: FeishuChat,
    text: string,
    options: { mention?: FeishuUser[]; replyTo?: string; post?: boolean; inTopicOf?: string } = {},
  ): { messageId: string; event: MessageEventPayload } {
    const messageId = id('om');
    const mentions = (options.mention ?? []).map((who, i) => ({ key: `@_user_${i + 1}`, who }));
    const prefix = mentions.map((m) => m.key).join(' ');
    const full = prefix ? `${prefix} ${text}` : text;
    const parsed: MessageContent = options.post
      ? {
          title: '',
          content: [
            [
              ...mentions.map((m) => ({ tag: 'at', user_id: m.key, user_name: m.who.name, style: [] })),
              { tag: 'text', text: ` ${text}`, style: [] },
            ],
          ],
        }
      : { text: full };
    // In a topic every message replies to the topic's root.
    const topic = options.inTopicOf ? this.#topicOf(options.inTopicOf) : undefined;
    const parentId = topic ? topic.rootId : options.replyTo;
    this.messages.set(messageId, {
      id: messageId,
      chatId: chat.id,
      msgType: options.post ? 'post' : 'text',
      content: parsed,
      versions: [],
      fromBot: false,
      senderId: from.openId,
      ...(parentId ? { parentId } : {}),
      ...(topic ? { threadId: topic.threadId } : {}),
    });
    const event = messageEventOf(this, {
      messageId,
      chatId: chat.id,
      chatType: chat.type,
      messageType: options.post ? 'post' : 'text',
      content: JSON.stringify(parsed),
      from,
      mentions,
      ...(parentId ? { parentId, rootId: topic ? topic.rootId : parentId } : {}),
      ...(topic ? { threadId: topic.threadId } : {}),
    });
    return { messageId, event };
  }

  /** A person sends an image, a file, a voice note or a post with an image (the resources are served). */
  mediaEvent(
    from: FeishuUser,
    chat: FeishuChat,
    media: FeishuMedia,
    options: { mention?: FeishuUser[] } = {},
  ): { messageId: string; event: MessageEventPayload } {
    const made = this.messageEvent(from, chat, '', options);
    const { messageId, event } = made;
    const add = (type: 'image' | 'file', bytes: Buffer, mimeType: string, size?: number) =>
      this.resources.add(messageId, type, bytes, mimeType, size);
    let messageType: string;
    let content: Record<string, unknown>;
    if ('image' in media) {
      messageType = 'image';
      content = { image_key: add('image', media.image.bytes, media.image.mimeType) };
    } else if ('file' in media) {
      messageType = 'file';
      content = { file_key: add('file', media.file.bytes, media.file.mimeType), file_name: media.file.name };
    } else if ('audio' in media) {
      messageType = 'audio';
      content = { file_key: add('file', media.audio.bytes, 'audio/ogg'), duration: media.audio.durationMs };
    } else if ('post' in media) {
      messageType = 'post';
      const { image, text } = media.post;
      const mentions = (options.mention ?? []).map((who, i) => ({ tag: 'at', user_id: `@_user_${i + 1}`, user_name: who.name, style: [] }));
      content = {
        title: '',
        content: [
          [{ tag: 'img', image_key: add('image', image.bytes, image.mimeType), width: image.width, height: image.height }],
          [...mentions, { tag: 'text', text: ` ${text}`, style: [] }],
        ],
      };
    } else {
      messageType = 'file';
      content = { file_key: add('file', Buffer.alloc(0), 'application/octet-stream', media.hugeFile.size), file_name: media.hugeFile.name };
    }
    event.event.message.message_type = messageType;
    event.event.message.content = JSON.stringify(content);
    const stored = this.messages.get(messageId);
    if (stored) {
      stored.msgType = messageType;
      stored.content = content as MessageContent;
    }
    return made;
  }

  /** The topic a message is in, or the one it starts (its root). */
  #topicOf(messageId: string): { rootId: string; threadId: string } {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`no message ${messageId}`);
    if (message.threadId) {
      const root = [...this.messages.values()].find((m) => m.threadId === message.threadId && !m.parentId);
      return { rootId: root?.id ?? message.parentId ?? message.id, threadId: message.threadId };
    }
    message.threadId = id('omt');
    return { rootId: message.id, threadId: message.threadId };
  }

  get bot(): FeishuUser {
    return { openId: this.botOpenId, name: this.botName };
  }

  /** A click on a card button (by its label), as a card.action.trigger callback. */
  clickEvent(user: FeishuUser, messageId: string, label: string): ClickEventPayload {
    const message = this.messages.get(messageId);
    const button = message && FakeFeishu.buttonsOf(message).find((b) => b.text.content === label);
    if (!message || !button) throw new Error(`no button "${label}" on ${messageId}`);
    return clickEventOf(this, { user, messageId, chatId: message.chatId, value: button.value });
  }

  /** Delivers an event (webhook or long connection) and pushes it again while the answer is late or not 200. */
  async push(event: PushedEvent, options: { attempts?: number; mode?: 'webhook' | 'ws' } = {}): Promise<Delivery> {
    const attempts = options.attempts ?? 3;
    const mode = options.mode ?? (this.webhookUrl ? 'webhook' : 'ws');
    let last: Delivery | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const started = Date.now();
      const answer = mode === 'webhook' ? await this.#postWebhook(event) : await this.#sendFrame(event);
      const body = EventAnswerSchema.safeParse(answer.body);
      last = { eventId: event.header.event_id, attempt, status: answer.status, body: body.data, ms: Date.now() - started };
      this.deliveries.push(last);
      if (answer.status === 200 && last.ms <= PUSH_TIMEOUT_MS) {
        if (!body.success) throw new Error(`the answer to ${event.header.event_type} is refused: ${body.error.message}`);
        this.#applyCallbackAnswer(event, body.data);
        return last;
      }
    }
    return last!;
  }

  /** The raw webhook request, for tests that forge or tamper with one. */
  async postRaw(body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
    const response = await fetch(this.webhookUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: parseJson(text) ?? text };
  }

  /**
   * The body and headers Feishu would send for `event` (encrypted and signed with an encrypt key),
   * signed now or at `signedAt` (ms since the epoch).
   */
  envelope(event: unknown, signedAt = Date.now()): { body: string; headers: Record<string, string> } {
    if (!this.encryptKey) return { body: JSON.stringify(event), headers: {} };
    const body = JSON.stringify({ encrypt: encrypt(JSON.stringify(event), this.encryptKey) });
    const timestamp = String(Math.floor(signedAt / 1000));
    const nonce = randomUUID();
    return {
      body,
      headers: {
        'x-lark-request-timestamp': timestamp,
        'x-lark-request-nonce': nonce,
        'x-lark-signature': sign(timestamp, nonce, this.encryptKey, body),
      },
    };
  }

  async #postWebhook(event: unknown): Promise<{ status: number; body: unknown }> {
    const { body, headers } = this.envelope(event);
    try {
      return await this.postRaw(body, headers);
    } catch {
      return { status: 0, body: undefined };
    }
  }

  /** Drops the long connection (a network cut); the client is expected to reconnect. */
  cutConnection(): void {
    this.#socket?.terminate();
    this.#socket = undefined;
  }

  async #sendFrame(event: PushedEvent): Promise<{ status: number; body: unknown }> {
    while (!this.#socket) await new Promise<void>((resolve) => this.#waitingForSocket.push(resolve));
    const socket = this.#socket;
    const frameId = randomUUID();
    const frame: Frame = {
      SeqID: 0,
      LogID: 0,
      service: 1,
      method: 1,
      headers: [
        { key: 'type', value: 'event' },
        { key: 'message_id', value: frameId },
        { key: 'sum', value: '1' },
        { key: 'seq', value: '0' },
        { key: 'trace_id', value: randomUUID() },
      ],
      payload: new TextEncoder().encode(JSON.stringify(overLongConnection(event))),
    };
    const answer = new Promise<unknown>((resolve) => this.#acks.set(frameId, resolve));
    sendBinary(socket, encodeFrame(frame));
    if (this.cutAfterNextFrame) {
      this.cutAfterNextFrame = false;
      this.cutConnection();
    }
    const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), PUSH_TIMEOUT_MS + 500));
    const ack = await Promise.race([answer, timeout]);
    this.#acks.delete(frameId);
    if (!ack) return { status: 0, body: undefined };
    const { code, data } = FrameAckSchema.parse(ack);
    return { status: code, body: data ? parseJson(Buffer.from(data, 'base64').toString('utf8')) : {} };
  }

  #onSocket(ws: WebSocket): void {
    this.wsConnections++;
    this.#socket = ws;
    for (const wake of this.#waitingForSocket.splice(0)) wake();
    ws.on('message', (data: Buffer) => {
      const frame = decodeFrame(new Uint8Array(data));
      if (frame.method === 0 && headerOf(frame, 'type') === 'ping') {
        const pong = {
          ...frame,
          headers: [{ key: 'type', value: 'pong' }],
          payload: new TextEncoder().encode(
            JSON.stringify({ PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0 }),
          ),
        };
        sendBinary(ws, encodeFrame(pong));
        return;
      }
      if (frame.method === 1) {
        const resolve = this.#acks.get(headerOf(frame, 'message_id') ?? '');
        if (resolve && frame.payload) resolve(parseJson(new TextDecoder().decode(frame.payload)));
      }
    });
    ws.on('close', () => {
      // Several processes of one app each hold a connection; Feishu sends each event to one of
      // them: the most recent one still open (readyState 1, OPEN).
      if (this.#socket === ws) this.#socket = [...this.#wss.clients].filter((c) => c !== ws && c.readyState === 1).at(-1);
    });
  }

  /** A callback answer may carry a toast and a replacement card. */
  #applyCallbackAnswer(event: PushedEvent, body: EventAnswer): void {
    if (event.header.event_type !== 'card.action.trigger') return;
    if (body.toast) this.toasts.push({ eventId: event.header.event_id, toast: body.toast });
    if (body.card) {
      const card = CardSchema.safeParse(body.card.data);
      if (body.card.type !== 'raw' || !card.success)
        throw new Error(`callback card refused (200340): ${JSON.stringify(body.card).slice(0, 200)}`);
      const message = this.messages.get(ClickContextSchema.parse(event.event).context.open_message_id);
      if (message) {
        message.versions.push(message.content);
        message.content = card.data;
      }
    }
  }

  // ---- REST ---------------------------------------------------------------------------------

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const raw = await readBody(req);
    const parsed = RequestBodySchema.safeParse(raw ? parseJson(raw) : {});
    if (!parsed.success) return this.#answer(req, res, url, 400, { code: 9499, msg: 'bad json' });
    const body = parsed.data;
    const path = url.pathname;
    if (req.method === 'POST' && path === '/open-apis/auth/v3/tenant_access_token/internal') {
      if (body.app_id !== this.appId) return this.#answer(req, res, url, 200, { code: 10003, msg: 'invalid param: app_id' });
      if (body.app_secret !== this.appSecret) return this.#answer(req, res, url, 200, { code: 10014, msg: 'app secret invalid' });
      const token = `t-${randomUUID()}`;
      this.#tokens.add(token);
      return this.#answer(req, res, url, 200, { code: 0, msg: 'ok', tenant_access_token: token, expire: 7200 });
    }
    if (req.method === 'POST' && path === '/callback/ws/endpoint') {
      if (!this.wsEnabled || body.AppID !== this.appId || body.AppSecret !== this.appSecret)
        return this.#answer(req, res, url, 200, { code: 514, msg: 'auth failed', data: {} });
      const URL_ = `ws://127.0.0.1:${this.#port}/ws?device_id=d1&service_id=1`;
      return this.#answer(req, res, url, 200, {
        code: 0,
        msg: 'ok',
        data: { URL: URL_, ClientConfig: { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0 } },
      });
    }
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (!auth || !this.#tokens.has(auth[1]!))
      return this.#answer(req, res, url, 401, { code: 99991663, msg: 'Invalid access token for authorization' });

    const resource = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/resources\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && resource) {
      const answer = this.resources.serve(resource[1]!, resource[2]!, url.searchParams.get('type'));
      this.calls.push({ method: 'GET', path, status: answer.status, code: answer.status === 200 ? 0 : -1 });
      res.writeHead(answer.status, answer.headers).end(answer.body);
      return;
    }
    if (req.method === 'GET' && path === '/open-apis/bot/v3/info') {
      return this.#answer(req, res, url, 200, {
        code: 0,
        msg: 'ok',
        bot: { open_id: this.botOpenId, app_name: this.botName, activate_status: 2 },
      });
    }
    if (req.method === 'POST' && path === '/open-apis/im/v1/messages') {
      if (url.searchParams.get('receive_id_type') !== 'chat_id')
        return this.#answer(req, res, url, 400, { code: 99992402, msg: 'receive_id_type required' });
      return this.#create(req, res, url, body, String(body.receive_id ?? ''), undefined);
    }
    const reply = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(path);
    if (req.method === 'POST' && reply) {
      const parent = this.messages.get(reply[1]!);
      if (!parent) return this.#answer(req, res, url, 400, { code: 230011, msg: 'message not found' });
      // A reply in a topic stays in it; reply_in_thread starts (or continues) the parent's topic.
      const threadId = parent.threadId ?? (body.reply_in_thread === true ? this.#topicOf(parent.id).threadId : undefined);
      return this.#create(req, res, url, body, parent.chatId, parent.id, threadId);
    }
    const one = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/.exec(path);
    if (one) {
      const message = this.messages.get(one[1]!);
      if (!message) return this.#answer(req, res, url, 400, { code: 230011, msg: 'message not found' });
      if (req.method === 'GET') {
        const sender = message.fromBot
          ? { id: this.appId, id_type: 'app_id', sender_type: 'app' }
          : { id: message.senderId, id_type: 'open_id', sender_type: 'user' };
        return this.#answer(req, res, url, 200, { code: 0, msg: 'ok', data: { items: [{ message_id: message.id, sender }] } });
      }
      if (req.method === 'PATCH') {
        if (this.slowUpdatesMs) await new Promise((r) => setTimeout(r, this.slowUpdatesMs));
        const card = this.#card(body.content);
        if (typeof card === 'string') return this.#answer(req, res, url, 400, { code: 230099, msg: card });
        if (message.msgType !== 'interactive' || !isCard(message.content) || !message.content.config?.update_multi)
          return this.#answer(req, res, url, 400, { code: 230099, msg: 'card is not shared (update_multi)' });
        message.versions.push(message.content);
        message.content = card;
        return this.#answer(req, res, url, 200, { code: 0, msg: 'ok', data: {} });
      }
    }
    return this.#answer(req, res, url, 404, { code: 404, msg: `no route ${req.method} ${path}` });
  }

  /** A card in a `content` string, or why it is refused. */
  #card(content: unknown): Card | string {
    if (typeof content !== 'string') return 'content must be a JSON string';
    if (Buffer.byteLength(content) > CARD_LIMIT) return 'card over 30 KB';
    const json = parseJson(content);
    if (json === undefined) return 'content is not JSON';
    const card = CardSchema.safeParse(json);
    return card.success ? card.data : `not a card: ${card.error.message}`;
  }

  /** The content of a message the bot sends, or the error Feishu answers. */
  #botContent(body: Record<string, unknown>): { msgType: string; content: MessageContent } | { code: number; msg: string } {
    if (body.msg_type === 'interactive') {
      const card = this.#card(body.content);
      return typeof card === 'string' ? { code: 230099, msg: card } : { msgType: body.msg_type, content: card };
    }
    if (body.msg_type === 'text') {
      const text =
        typeof body.content === 'string' && Buffer.byteLength(body.content) <= TEXT_LIMIT
          ? TextContentSchema.safeParse(parseJson(body.content))
          : undefined;
      return text?.success ? { msgType: body.msg_type, content: text.data } : { code: 230025, msg: 'bad text content' };
    }
    return { code: 230001, msg: `msg_type ${String(body.msg_type)} not supported by the fake` };
  }

  #create(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    body: Record<string, unknown>,
    chatId: string,
    parentId: string | undefined,
    threadId?: string,
  ): void {
    const uuid = body.uuid;
    if (uuid !== undefined && (typeof uuid !== 'string' || uuid.length === 0 || uuid.length > UUID_MAX_LENGTH)) {
      this.#answer(req, res, url, 400, { code: 230001, msg: 'invalid uuid: at most 50 characters' });
      return;
    }
    const earlier = typeof uuid === 'string' ? this.#byUuid.get(uuid) : undefined;
    const first = earlier && Date.now() - earlier.at < UUID_WINDOW_MS ? this.messages.get(earlier.messageId) : undefined;
    if (first) {
      this.#answer(req, res, url, 200, {
        code: 0,
        msg: 'ok',
        data: { message_id: first.id, chat_id: first.chatId, msg_type: first.msgType },
      });
      return;
    }
    const made = chatId ? this.#botContent(body) : { code: 230001, msg: 'invalid receive_id' };
    if ('code' in made) {
      this.#answer(req, res, url, 400, made);
      return;
    }
    const { msgType, content } = made;
    const messageId = id('om');
    if (typeof uuid === 'string') this.#byUuid.set(uuid, { messageId, at: Date.now() });
    this.messages.set(messageId, {
      id: messageId,
      chatId,
      msgType,
      content,
      versions: [],
      fromBot: true,
      senderId: this.appId,
      ...(parentId ? { parentId } : {}),
      ...(threadId ? { threadId } : {}),
    });
    this.#answer(req, res, url, 200, { code: 0, msg: 'ok', data: { message_id: messageId, chat_id: chatId, msg_type: msgType } });
  }

  #answer(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    status: number,
    body: { code: number; msg: string; [field: string]: unknown },
  ): void {
    this.calls.push({ method: req.method ?? '', path: url.pathname, status, code: body.code });
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  callsTo(method: string, pathPattern: RegExp): ApiCall[] {
    return this.calls.filter((c) => c.method === method && pathPattern.test(c.path));
  }
}
