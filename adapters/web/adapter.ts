// The web console as a channel: messages typed in the page become Inbound, button clicks become
// Action, and what the core sends or edits lands in the chat's transcript and is pushed to every
// page showing that chat. It serves no HTTP itself: routes() mounts its app on the process's host.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Context } from 'hono';
import type { AdminPort } from '../../src/core/admin.ts';
import type {
  Action,
  Attachment,
  AttachmentDownload,
  ChannelAdapter,
  ChannelCapabilities,
  ChatRef,
  CoreLogger,
  HttpRoutes,
  InboundSink,
  OutboundMessage,
  SentRef,
  ToolActivity,
} from '../../src/core/types.ts';
import { answerOnce } from '../../src/core/ack.ts';
import { parseCommand } from '../../src/core/commands.ts';
import { DeliveryError } from '../../src/core/delivery.ts';
import { resolveLocale, t } from '../../src/core/i18n/index.ts';
import { AccessGuard } from './access.ts';
import { AdminEpochFile } from './admin-epoch.ts';
import { MAX_BUTTON_PAYLOAD_BYTES, type ConsoleBackend } from './api.ts';
import { loadAssets } from './assets.ts';
import type { WebConfig } from './config.ts';
import { createConsoleApp } from './console-app.ts';
import { HttpError } from './http.ts';
import { Identities } from './identities.ts';
import { mentionsBot, normaliseCommand, type WebChat, type WebPerson } from './identity.ts';
import { createMarkdownRenderer } from './markdown.ts';
import { pageTexts } from './page-texts.ts';
import { loadSecret } from './secret.ts';
import { SseHub } from './sse-hub.ts';
import { Transcript, viewOf, type EntryView, type MessageEntry, type ReplyPreview, type TranscriptEntry } from './transcript.ts';
import { attachmentOfUpload, UploadStore, viewOfUpload } from './uploads.ts';

export interface WebAdapterOptions {
  config: WebConfig;
  botName: string;
  log: CoreLogger;
  /** Where the identity secret file lives (when PARLEY_WEB_SECRET is not set). */
  dataDir: string;
  /** `web:<id>` entries of PARLEY_ADMINS (shown to those browsers as "admin"). */
  configuredAdmins?: string[];
  transcript?: Transcript;
}

const SNIPPET_CHARS = 80;
/** Stored messages a chat first touched after a restart is seeded with. */
const SEED_MESSAGES = 200;
/** How often a running console looks whether the admins were reset (requests look at once). */
const ADMIN_CHECK_MS = 5_000;

export class WebAdapter implements ChannelAdapter, ConsoleBackend {
  readonly id = 'web';
  readonly kind = 'web';
  readonly capabilities: ChannelCapabilities = {
    maxTextLength: 16_000,
    maxButtonPayload: MAX_BUTTON_PAYLOAD_BYTES,
    canEdit: true,
    canButtons: true,
    canEphemeral: false,
    hasThreads: false,
    hasTyping: true,
    repliesInDirect: false,
    editIntervalMs: { direct: 100, group: 100 },
  };
  readonly botName: string;
  /** Files dropped or pasted into the console, kept in the data folder (uploads.ts). */
  readonly uploads: UploadStore;
  /** The operator identity (a browser becomes it with the admin login link) decides any approval. */
  readonly admins: readonly string[];
  readonly #config: WebConfig;
  readonly #log: CoreLogger;
  readonly #transcript: Transcript;
  readonly #identities: Identities;
  readonly #configuredAdmins: Set<string>;
  readonly #render = createMarkdownRenderer();
  #http: HttpRoutes | undefined;
  /** The admin pages' access to the bot (src/main.ts hands it over before start). */
  #admin: AdminPort | undefined;
  #sink: InboundSink | undefined;
  /** Button presses the core is still working on (after their ack). */
  readonly #presses = new Set<Promise<void>>();
  #hub: SseHub | undefined;
  #loginCode: string | undefined;
  #adminCheck: NodeJS.Timeout | undefined;
  /** Reached over HTTPS (PARLEY_WEB_PUBLIC_URL): every cookie is Secure. */
  readonly #secureCookies: boolean;
  /** Chats whose stored conversation was loaded into the transcript (once per chat and process). */
  readonly #seeded = new Map<string, Promise<void>>();

  constructor(options: WebAdapterOptions) {
    this.#config = options.config;
    this.botName = options.botName;
    this.#log = options.log;
    this.#transcript = options.transcript ?? new Transcript();
    this.#secureCookies = options.config.publicUrl?.startsWith('https:') ?? false;
    this.#identities = new Identities({
      secret: loadSecret(options.config.secret, options.dataDir),
      admins: new AdminEpochFile(options.dataDir),
      secureCookies: this.#secureCookies,
      // A signed-out admin's open pages stop receiving the operator's chats.
      onAdminsReset: () => this.#hub?.endViewer(this.#identities.operatorId),
    });
    this.admins = [this.#identities.operatorId];
    this.uploads = new UploadStore({ dir: join(options.dataDir, 'web-uploads'), maxBytes: options.config.maxUploadBytes });
    this.#configuredAdmins = new Set(
      (options.configuredAdmins ?? []).filter((entry) => entry.startsWith('web:')).map((entry) => entry.slice('web:'.length)),
    );
  }

  /** The console's address: PARLEY_WEB_PUBLIC_URL, else the host's (with its real port once it listens). */
  get url(): string {
    if (!this.#http) throw new Error('web console: not mounted on an HTTP host (routes() was not called)');
    return this.#config.publicUrl ?? this.#http.url;
  }

  /** The single-use admin login link of this run (after start). */
  get adminLoginUrl(): string | undefined {
    return this.#loginCode === undefined ? undefined : `${this.url}/admin-login?code=${this.#loginCode}`;
  }

  // ---- ChannelAdapter ---------------------------------------------------------------------

  routes(http: HttpRoutes): void {
    const app = createConsoleApp({
      guard: new AccessGuard(this.#config.token),
      secureCookies: this.#secureCookies,
      identities: this.#identities,
      backend: this,
      assets: loadAssets(),
      log: this.#log,
      admin: {
        isAdmin: (viewer) => this.isAdmin(viewer),
        port: () => this.#admin,
        markdown: this.#render,
        ...(this.#config.publicUrl ? { publicOrigin: this.#config.publicUrl } : {}),
      },
    });
    http.mount('/', app.fetch);
    this.#http = http;
  }

  useAdmin(port: AdminPort): void {
    this.#admin = port;
  }

  async start(sink: InboundSink): Promise<void> {
    if (!this.#http) throw new Error('web console: not mounted on an HTTP host (routes() was not called)');
    this.#hub = new SseHub({ perViewer: this.#config.maxStreamsPerUser, total: this.#config.maxStreams });
    this.#sink = sink;
    this.#loginCode = this.#identities.newLoginCode();
    this.#adminCheck = setInterval(() => this.#identities.checkAdmins(), ADMIN_CHECK_MS);
    this.#adminCheck.unref();
    this.#log.debug({ url: this.url }, 'web console serving');
  }

  async stop(): Promise<void> {
    clearInterval(this.#adminCheck);
    while (this.#presses.size > 0) await Promise.allSettled([...this.#presses]);
    this.#sink = undefined;
    this.#hub?.close();
    this.#hub = undefined;
  }

  describe(): string[] {
    const lines = [`web console at ${this.url}`];
    if (this.adminLoginUrl) lines.push(`web admin login: ${this.adminLoginUrl} (works once; makes that browser an admin)`);
    if (this.#config.token) lines.push(`(requires PARLEY_WEB_TOKEN: open it once as ${this.url}/?token=<token>)`);
    return lines;
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    this.#checkLength(message.text);
    await this.#seed(chat, viewerOfChat(chat.chatId));
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
    return { channel: this.id, chatId: chat.chatId, messageId: entry.id };
  }

  async edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    this.#checkLength(message.text);
    const entry = this.#transcript.update(ref.chatId, ref.messageId, 'message', (m) => {
      m.text = message.text;
      m.html = this.#render(message.text);
      if (message.buttons !== undefined) m.buttons = message.buttons;
    });
    // Transcripts are bounded and kept per process: after a restart, or once enough newer entries
    // pushed it out, the message is gone and the core sends its text anew.
    if (!entry) throw new DeliveryError(`web console: message ${ref.messageId} is no longer in the transcript`, 'gone');
    this.#publish(ref.chatId, entry);
  }

  async typing(chat: ChatRef): Promise<void> {
    this.#hub?.publish(chat.chatId, 'typing', () => ({ name: this.botName }));
  }

  async showActivity(chat: ChatRef, activity: ToolActivity): Promise<void> {
    if (activity.phase === 'start') {
      this.#publish(
        chat.chatId,
        this.#transcript.add(chat.chatId, { kind: 'activity', callId: activity.callId, label: activity.label, state: 'running' }),
      );
      return;
    }
    const line = this.#transcript.activityOf(chat.chatId, activity.callId);
    if (!line) return;
    const updated = this.#transcript.update(chat.chatId, line.id, 'activity', (a) => {
      a.state = activity.ok === false ? 'failed' : 'done';
    });
    if (updated) this.#publish(chat.chatId, updated);
  }

  /** A file a browser uploaded (ref `upload:<id>`), from the data folder. */
  fetchAttachment(attachment: Attachment): Promise<AttachmentDownload> {
    return this.uploads.open(attachment);
  }

  // ---- ConsoleBackend (the page's API) ----------------------------------------------------

  async history(chat: WebChat, viewer: string): Promise<EntryView[]> {
    await this.#seed({ channel: this.id, ...chat }, viewer);
    return this.#transcript.list(chat.chatId).map((entry) => viewOf(entry, viewer));
  }

  events(c: Context, chat: WebChat, viewer: string): Response {
    return this.#running().hub.open(c, chat.chatId, viewer);
  }

  texts(acceptLanguage: string | undefined): { locale: string; texts: Record<string, string> } {
    const locale = resolveLocale(this.#config.locale, acceptLanguage);
    return { locale, texts: pageTexts(locale) };
  }

  isAdmin(viewer: string): boolean {
    return viewer === this.#identities.operatorId || this.#configuredAdmins.has(viewer);
  }

  async post(chat: WebChat, person: WebPerson, text: string, uploads: string[] = []): Promise<{ id: string }> {
    const { sink } = this.#running();
    const files = uploads.length ? await this.uploads.claim(person.id, uploads, chat.chatId) : [];
    if (!files) throw new HttpError(400, 'an attached file is not one this browser uploaded, or it was deleted; attach it again');
    await this.#seed({ channel: this.id, ...chat }, person.id);
    const entry = this.#transcript.add(chat.chatId, {
      kind: 'message',
      author: { id: person.id, name: person.name, isBot: false },
      text,
      buttons: [],
      ...(files.length ? { attachments: files.map(viewOfUpload) } : {}),
    });
    this.#publish(chat.chatId, entry);
    const forBot = normaliseCommand(text, this.botName);
    if (forBot === undefined) return entry;
    await sink.onMessage({
      channel: this.id,
      chatId: chat.chatId,
      chatType: chat.chatType,
      messageId: entry.id,
      // Delivery ids are de-duplicated in the database, so they must be unique across restarts too.
      eventId: randomUUID(),
      sender: { id: person.id, displayName: person.name, isBot: false },
      text: forBot,
      attachments: files.map(attachmentOfUpload),
      mentionsBot: mentionsBot(text, this.botName),
      repliesToBot: false,
      ...(person.locale ? { locale: person.locale } : {}),
      receivedAt: new Date(),
      ...(chat.chatType === 'group' ? { chatTitle: chat.chatId.replace(/^room-/, '') } : {}),
    });
    // A fresh conversation keeps none of the files this person brought into the old one.
    if (parseCommand(forBot)?.name === 'reset') await this.uploads.forget(person.id, chat.chatId);
    return entry;
  }

  async press(chat: WebChat, person: WebPerson, messageId: string, payload: string): Promise<string | undefined> {
    const { sink } = this.#running();
    const message = this.#transcript.message(chat.chatId, messageId);
    if (!message) throw new HttpError(404, 'there is no such message in this chat');
    if (!message.buttons.flat().some((button) => button.payload === payload)) throw new HttpError(409, 'this button is no longer there');
    // The page gets its answer at the ack; what the core does after it (edit the prompt, resume
    // the turn) goes on in the background.
    let answered!: (toast: string | undefined) => void;
    const toast = new Promise<string | undefined>((resolve) => (answered = resolve));
    const { ack } = answerOnce(async (text) => answered(text));
    const action: Action = {
      channel: this.id,
      chatId: chat.chatId,
      chatType: chat.chatType,
      messageId,
      userId: person.id,
      displayName: person.name,
      payload,
      ...(person.locale ? { locale: person.locale } : {}),
      reply: { ack, whisper: async (text) => this.#whisper(chat.chatId, person.id, text) },
    };
    const work = sink
      .onAction(action)
      .catch(async (error: unknown) => {
        this.#log.error({ err: error }, 'handling a button press failed');
        await ack(t(resolveLocale(this.#config.locale, person.locale), 'general.tryAgain'));
      })
      .finally(() => ack());
    this.#presses.add(work);
    void work.finally(() => this.#presses.delete(work));
    return toast;
  }

  // ---- helpers ------------------------------------------------------------------------------

  /**
   * The first time this process touches a chat, load what the core stored of it (a reload after a
   * restart shows the conversation). Failures are logged: the chat then starts empty, as before.
   */
  #seed(chat: ChatRef, viewer: string): Promise<void> {
    const existing = this.#seeded.get(chat.chatId);
    if (existing) return existing;
    const conversation = this.#sink?.conversation?.bind(this.#sink);
    if (!conversation) return Promise.resolve();
    const work = conversation(chat, { id: viewer }, SEED_MESSAGES)
      .then((entries) => {
        this.#transcript.seed(
          chat.chatId,
          entries.map((entry) => {
            const isBot = entry.role === 'assistant';
            return {
              kind: 'message' as const,
              ...(entry.messageId ? { id: entry.messageId } : {}),
              author: isBot ? { id: 'bot', name: this.botName, isBot } : { id: entry.author.id, name: entry.author.displayName, isBot },
              text: entry.text,
              ...(isBot ? { html: this.#render(entry.text) } : {}),
              buttons: entry.buttons ?? [],
              at: entry.at.toISOString(),
            };
          }),
        );
      })
      .catch((error: unknown) => {
        this.#seeded.delete(chat.chatId);
        this.#log.warn({ err: error, chatId: chat.chatId }, 'could not load the stored conversation of a web chat');
      });
    this.#seeded.set(chat.chatId, work);
    return work;
  }

  #running(): { sink: InboundSink; hub: SseHub } {
    if (!this.#sink || !this.#hub) throw new HttpError(503, 'the console is not running');
    return { sink: this.#sink, hub: this.#hub };
  }

  /** An event only the streams of `viewer` in this chat receive. */
  #whisper(chatId: string, viewer: string, text: string): void {
    this.#hub?.publish(chatId, 'whisper', (to) => (to === viewer ? { text } : undefined));
  }

  #publish(chatId: string, entry: TranscriptEntry): void {
    this.#hub?.publish(chatId, 'entry', (viewer) => viewOf(entry, viewer));
  }

  #checkLength(text: string): void {
    if (text.length > this.capabilities.maxTextLength)
      throw new DeliveryError(`web console: message too long (${text.length} characters)`, 'too_large');
  }

  #preview(chatId: string, messageId: string): ReplyPreview | undefined {
    const target: MessageEntry | undefined = this.#transcript.message(chatId, messageId);
    if (!target) return undefined;
    const flat = target.text.replace(/\s+/g, ' ').trim();
    return {
      id: target.id,
      author: target.author.name,
      snippet: flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS - 1)}…` : flat,
    };
  }
}

/** The person a direct chat belongs to (`dm-<id>`); rooms are shared, so any viewer sees the same. */
function viewerOfChat(chatId: string): string {
  return chatId.startsWith('dm-') ? chatId.slice(3) : 'bot';
}
