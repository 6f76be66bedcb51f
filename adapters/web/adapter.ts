// The web console as a channel: messages typed in the page become Inbound, button clicks become
// Action, and what the core sends or edits lands in the chat's transcript and is pushed to every
// page showing that chat.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type {
  Action,
  AdapterCapabilities,
  ChannelAdapter,
  ChatRef,
  CoreLogger,
  InboundSink,
  OutboundMessage,
  SentRef,
  ToolActivity,
} from '../../src/core/types.ts';
import { answerOnce } from '../../src/core/ack.ts';
import { AccessGuard } from './access.ts';
import type { ConsoleBackend } from './api.ts';
import { loadAssets } from './assets.ts';
import { consoleUrl, type WebConfig } from './config.ts';
import { HttpError } from './http.ts';
import { mentionsBot, normaliseCommand, type WebChat, type WebPerson } from './identity.ts';
import { createMarkdownRenderer } from './markdown.ts';
import { close, createWebServer, listen } from './server.ts';
import { SseHub } from './sse-hub.ts';
import { Transcript, type MessageEntry, type ReplyPreview, type TranscriptEntry } from './transcript.ts';

export interface WebAdapterOptions {
  config: WebConfig;
  botName: string;
  log: CoreLogger;
  transcript?: Transcript;
}

const SNIPPET_CHARS = 80;

export class WebAdapter implements ChannelAdapter, ConsoleBackend {
  readonly name = 'web';
  readonly capabilities: AdapterCapabilities = {
    maxTextLength: 16_000,
    canEdit: true,
    canButtons: true,
    editIntervalMs: { direct: 100, group: 100 },
  };
  readonly botName: string;
  readonly #config: WebConfig;
  readonly #log: CoreLogger;
  readonly #transcript: Transcript;
  readonly #render = createMarkdownRenderer();
  #sink: InboundSink | undefined;
  #server: Server | undefined;
  #hub: SseHub | undefined;
  #port: number | undefined;

  constructor(options: WebAdapterOptions) {
    this.#config = options.config;
    this.botName = options.botName;
    this.#log = options.log;
    this.#transcript = options.transcript ?? new Transcript();
  }

  /** The console's address (after start, with the real port when configured as 0). */
  get url(): string {
    return consoleUrl(this.#config.host, this.#port ?? this.#config.port);
  }

  // ---- ChannelAdapter ---------------------------------------------------------------------

  async start(sink: InboundSink): Promise<void> {
    const hub = new SseHub();
    const server = createWebServer({ guard: new AccessGuard(this.#config.token), backend: this, assets: loadAssets(), log: this.#log });
    try {
      this.#port = (await listen(server, this.#config.host, this.#config.port)).port;
    } catch (error) {
      hub.close();
      throw error;
    }
    this.#sink = sink;
    this.#hub = hub;
    this.#server = server;
    this.#log.debug({ url: this.url }, 'web console listening');
  }

  async stop(): Promise<void> {
    this.#sink = undefined;
    this.#hub?.close();
    this.#hub = undefined;
    if (this.#server) await close(this.#server);
    this.#server = undefined;
  }

  describe(): string[] {
    const line = `web console at ${this.url}`;
    if (!this.#config.token) return [line];
    return [line, `(requires PARLEY_WEB_TOKEN: open it once as ${this.url}/?token=<token>)`];
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    this.#checkLength(message.text);
    const replyTo = message.replyToMessageId ? this.#preview(chat.chatId, message.replyToMessageId) : undefined;
    const entry = this.#transcript.add(chat.chatId, {
      kind: 'message',
      author: { id: 'bot', name: this.botName, isBot: true },
      text: message.text,
      html: this.#render(message.text),
      buttons: message.buttons ?? [],
      ...(replyTo ? { replyTo } : {}),
    });
    this.#publish(chat.chatId, entry);
    return { channel: this.name, chatId: chat.chatId, messageId: entry.id };
  }

  async edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    this.#checkLength(message.text);
    const entry = this.#transcript.update(ref.chatId, ref.messageId, 'message', (m) => {
      m.text = message.text;
      m.html = this.#render(message.text);
      if (message.buttons !== undefined) m.buttons = message.buttons;
    });
    if (!entry) throw new Error(`web console: message ${ref.messageId} not found (transcripts are kept per process)`);
    this.#publish(ref.chatId, entry);
  }

  async typing(chat: ChatRef): Promise<void> {
    this.#hub?.publish(chat.chatId, 'typing', { name: this.botName });
  }

  async showActivity(chat: ChatRef, activity: ToolActivity): Promise<void> {
    if (activity.phase === 'start') {
      this.#publish(chat.chatId, this.#transcript.add(chat.chatId, { kind: 'activity', callId: activity.callId, label: activity.label, state: 'running' }));
      return;
    }
    const line = this.#transcript.activityOf(chat.chatId, activity.callId);
    if (!line) return;
    const updated = this.#transcript.update(chat.chatId, line.id, 'activity', (a) => {
      a.state = activity.ok === false ? 'failed' : 'done';
    });
    if (updated) this.#publish(chat.chatId, updated);
  }

  // ---- ConsoleBackend (the page's API) ----------------------------------------------------

  history(chat: WebChat): TranscriptEntry[] {
    return this.#transcript.list(chat.chatId);
  }

  subscribe(chat: WebChat, req: IncomingMessage, res: ServerResponse): void {
    this.#running().hub.subscribe(chat.chatId, req, res);
  }

  async post(chat: WebChat, person: WebPerson, text: string): Promise<TranscriptEntry> {
    const { sink } = this.#running();
    const entry = this.#transcript.add(chat.chatId, { kind: 'message', author: { id: person.id, name: person.name, isBot: false }, text, buttons: [] });
    this.#publish(chat.chatId, entry);
    const forBot = normaliseCommand(text, this.botName);
    if (forBot === undefined) return entry;
    await sink.onMessage({
      channel: this.name,
      chatId: chat.chatId,
      chatType: chat.chatType,
      messageId: entry.id,
      // Delivery ids are de-duplicated in the database, so they must be unique across restarts too.
      eventId: randomUUID(),
      sender: { id: person.id, displayName: person.name, isBot: false },
      text: forBot,
      mentionsBot: mentionsBot(text, this.botName),
      repliesToBot: false,
      receivedAt: new Date(),
    });
    return entry;
  }

  async press(chat: WebChat, person: WebPerson, messageId: string, payload: string): Promise<string | undefined> {
    const { sink } = this.#running();
    const message = this.#transcript.message(chat.chatId, messageId);
    if (!message) throw new HttpError(404, 'there is no such message in this chat');
    if (!message.buttons.flat().some((button) => button.payload === payload)) throw new HttpError(409, 'this button is no longer there');
    let toast: string | undefined;
    const { ack } = answerOnce(async (text) => {
      toast = text;
    });
    const action: Action = {
      channel: this.name,
      chatId: chat.chatId,
      chatType: chat.chatType,
      messageId,
      userId: person.id,
      displayName: person.name,
      payload,
      ack,
    };
    await sink.onAction(action);
    return toast;
  }

  // ---- helpers ------------------------------------------------------------------------------

  #running(): { sink: InboundSink; hub: SseHub } {
    if (!this.#sink || !this.#hub) throw new HttpError(503, 'the console is not running');
    return { sink: this.#sink, hub: this.#hub };
  }

  #publish(chatId: string, entry: TranscriptEntry): void {
    this.#hub?.publish(chatId, 'entry', entry);
  }

  #checkLength(text: string): void {
    if (text.length > this.capabilities.maxTextLength) throw new Error(`web console: message too long (${text.length} characters)`);
  }

  #preview(chatId: string, messageId: string): ReplyPreview | undefined {
    const target: MessageEntry | undefined = this.#transcript.message(chatId, messageId);
    if (!target) return undefined;
    const flat = target.text.replace(/\s+/g, ' ').trim();
    return { id: target.id, author: target.author.name, snippet: flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS - 1)}…` : flat };
  }
}
