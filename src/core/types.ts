// The neutral contract between channel adapters and the core. Adapters import only this folder
// (and their own SDK); the core never learns what Telegram or Discord is.
import { z } from 'zod';
import type { AdminPort } from './admin.ts';
import type { CommandInfo } from './commands.ts';

const ChatTypeSchema = z.enum(['direct', 'group']);
export type ChatType = z.infer<typeof ChatTypeSchema>;

/**
 * Free text from people, made storable: PostgreSQL refuses NUL characters, and unpaired UTF-16
 * surrogates (which no UTF-8 platform can send, but a forged payload can) break the database
 * drivers, so NULs are dropped and lone surrogates become U+FFFD.
 */
export const PersonTextSchema = z.string().transform((text) => text.replaceAll('\0', '').toWellFormed());

const SenderSchema = z.object({
  id: z.string().min(1),
  displayName: PersonTextSchema,
  isBot: z.boolean(),
});

/**
 * Something attached to a message, as the adapter reports it. The core's media intake (src/media)
 * fetches what a turn uses through `ChannelAdapter.fetchAttachment` and reads it by its bytes, not
 * by these fields.
 */
const AttachmentSchema = z.object({
  kind: z.enum(['image', 'file', 'audio', 'video', 'sticker', 'other']),
  /** File name as the sender gave it. */
  name: PersonTextSchema.optional(),
  mimeType: z.string().max(200).optional(),
  /** Bytes. */
  size: z.number().int().nonnegative().optional(),
  /** Opaque, resolvable later by the adapter that reported it (e.g. Telegram's file_id). */
  ref: z.string().min(1),
  /** Seconds of a voice note or recording, when the platform tells (shown as "voice message, 0:42"). */
  durationSeconds: z.number().nonnegative().optional(),
  /** A voice note recorded in the app (Telegram voice, Discord/Feishu voice messages), not an uploaded audio file. */
  voice: z.boolean().optional(),
});
export type Attachment = z.infer<typeof AttachmentSchema>;

/**
 * One message addressed to (or seen by) the bot, as every adapter reports it.
 *
 * What the adapter sets:
 * - `channel`: the adapter's instance id (`ChannelAdapter.id`), not its kind.
 * - `text`: what the person wrote (a caption counts as text); commands normalised:
 *   `/cmd@thisbot args` arrives as `/cmd args`; a command addressed to another bot is not reported.
 * - `attachments`: everything attached (default []). A message with attachments and no text is
 *   still reported, never dropped.
 * - `mentionsBot`: the platform says the bot was mentioned (an @mention entity, a command
 *   addressed to this bot, a Discord user mention of the bot).
 * - `repliesToBot`: the replied-to message was sent by this bot; `replyToMessageId` names it.
 * - `threadId`: the platform's thread/topic (Telegram forum topic, Discord thread, Feishu thread);
 *   undefined for the main conversation of a chat.
 * - `locale`: the language the platform reports for the sender (Telegram's `from.language_code`,
 *   a Discord interaction's `locale`, the browser's Accept-Language), as the platform writes it;
 *   unset where the platform tells none. The core maps it to one of its locales.
 *
 * What the core derives (adapters do not): the trigger policy (direct chats always; groups when
 * `mentionsBot`, `repliesToBot` or a /command), the session key `channel:chatId[:threadId][:userId]`,
 * and replying to the triggering message in groups.
 */
export const InboundSchema = z.object({
  channel: z.string().min(1),
  chatId: z.string().min(1),
  chatType: ChatTypeSchema,
  threadId: z.string().min(1).optional(),
  messageId: z.string().min(1),
  /** Platform delivery id used for de-duplication (update_id, event_id, ...). */
  eventId: z.string().min(1),
  sender: SenderSchema,
  text: PersonTextSchema,
  attachments: z.array(AttachmentSchema).default([]),
  mentionsBot: z.boolean(),
  repliesToBot: z.boolean(),
  replyToMessageId: z.string().optional(),
  /** The sender's language as the platform tags it (see above); the core resolves it and stores its choice here. */
  locale: z.string().trim().min(1).max(200).optional().catch(undefined),
  receivedAt: z.coerce.date(),
  /** The group's or channel's name, where the platform sends it with the message (for prompt templates' {{ chatTitle }}). */
  chatTitle: z.string().optional(),
});
export type Inbound = z.infer<typeof InboundSchema>;

/** Where a message goes. Serialisable, so a turn can reply from any process. */
const ChatRefSchema = z.object({
  channel: z.string().min(1),
  chatId: z.string().min(1),
  chatType: ChatTypeSchema,
  threadId: z.string().min(1).optional(),
});
export type ChatRef = z.infer<typeof ChatRefSchema>;

const ButtonSchema = z.object({
  label: z.string().min(1),
  /** Opaque token; at most the channel's `capabilities.maxButtonPayload` bytes. */
  payload: z.string().min(1),
  style: z.enum(['primary', 'danger']).optional(),
});
export type Button = z.infer<typeof ButtonSchema>;

export interface OutboundMessage {
  /** CommonMark subset; the adapter renders it for its platform. */
  text: string;
  /** Rows of buttons. An empty array on edit removes existing buttons. */
  buttons?: Button[][];
  /** Send as a reply to this platform message id (groups). */
  replyToMessageId?: string;
  /**
   * Sends with the same key make one message, where the platform can (Discord's nonce): a send
   * repeated after a crash returns the message the first one made, showing this text.
   */
  idempotencyKey?: string;
  /**
   * With idempotencyKey: a process that went away may have made this send already, and the message
   * a repeat returns may show its earlier text (the adapter makes sure it shows this one).
   */
  mayRepeat?: boolean;
}

/** What is needed to edit a sent message later, from any process. */
export const SentRefSchema = z.object({
  channel: z.string().min(1),
  chatId: z.string().min(1),
  messageId: z.string().min(1),
  threadId: z.string().optional(),
  /** Adapter-specific extra data (kept opaque to the core). */
  extra: z.record(z.string(), z.string()).optional(),
});
export type SentRef = z.infer<typeof SentRefSchema>;

/** How the core answers one person's interaction (a button click, a Discord slash command). */
export interface InteractionReply {
  /**
   * Acknowledge within the platform's deadline (Discord and Feishu: 3 s); `text` is shown to the
   * clicker alone (toast / ephemeral). Texts here are written like OutboundMessage.text (names in
   * them escaped); a toast that shows no formatting shows them as they are. Exactly once: later
   * calls are no-ops (adapters build it with answerOnce from src/core/ack.ts). The core calls it
   * before anything slow.
   */
  ack(text?: string): Promise<void>;
  /**
   * After the ack: tell only this person something (Discord: an ephemeral follow-up). Where the
   * platform has no such message (Telegram, Feishu: a toast is no longer possible after the ack),
   * the adapter falls back to what comes closest and documents it.
   */
  whisper(text: string): Promise<void>;
}

/** A button press, normalised. */
export interface Action {
  channel: string;
  chatId: string;
  chatType: ChatType;
  threadId?: string;
  /** The message that carried the button. */
  messageId: string;
  userId: string;
  displayName: string;
  payload: string;
  /** The clicker's language as the platform tags it (Telegram's language_code, a Discord interaction's locale), when it tells. */
  locale?: string;
  reply: InteractionReply;
}

/** An InteractionReply: both methods present (checked, not called). */
export const InteractionReplySchema = z.custom<InteractionReply>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as InteractionReply).ack === 'function' &&
    typeof (value as InteractionReply).whisper === 'function',
  'reply must be an InteractionReply (ack and whisper)',
);

/** What the core checks of an Action an adapter reports (the gateway validates every one). */
export const ActionSchema = z.object({
  channel: z.string().min(1),
  chatId: z.string().min(1),
  chatType: ChatTypeSchema,
  threadId: z.string().min(1).optional(),
  messageId: z.string().min(1),
  userId: z.string().min(1),
  displayName: PersonTextSchema,
  /** Button payloads are short opaque tokens (at most 256 bytes on any platform today). */
  payload: z.string().min(1).max(1_024),
  locale: z.string().trim().min(1).max(200).optional().catch(undefined),
  reply: InteractionReplySchema,
});

export interface ToolActivity {
  phase: 'start' | 'end';
  callId: string;
  tool: string;
  /** Short human description in the chat's language, e.g. "searching knowledge…". */
  label: string;
  ok?: boolean;
}

/** What a channel can do; the core reads these instead of platform constants. */
export interface ChannelCapabilities {
  /** Per message, in characters. */
  maxTextLength: number;
  /** Button payload limit in bytes (Telegram 64, Discord 100, Feishu 256, web 256). */
  maxButtonPayload: number;
  canEdit: boolean;
  canButtons: boolean;
  /** A message only one person sees (Discord yes; others no). */
  canEphemeral: boolean;
  hasThreads: boolean;
  hasTyping: boolean;
  /**
   * Answers in direct chats are shown as replies to the message they answer (Discord, Feishu do
   * this); otherwise only group answers are (a reply in a two-person chat is noise on Telegram).
   */
  repliesInDirect: boolean;
  /**
   * Sends with the same idempotencyKey make one message (Discord's nonce, Feishu's uuid). Without
   * it (Telegram), the core records that a message is about to be sent before sending it.
   */
  idempotentSends?: boolean;
  /** Minimum pause between streaming edits of one message. */
  editIntervalMs: { direct: number; group: number };
}

/** A message of a conversation as the core stored it (for channels that redraw history, like the web console). */
export interface ConversationEntry {
  role: 'user' | 'assistant';
  author: { id: string; displayName: string };
  /** CommonMark subset, as sent. */
  text: string;
  /** Buttons still live (a pending approval prompt). */
  buttons?: Button[][];
  /** The message id it was sent under, when the core keeps it (approval prompts): edits name it. */
  messageId?: string;
  at: Date;
}

export interface InboundSink {
  /**
   * `interaction` is set when the message is a platform interaction (a Discord slash command):
   * the core answers control commands through it (ephemeral where they concern only the caller).
   */
  onMessage(inbound: Inbound, interaction?: InteractionReply): Promise<void>;
  onAction(action: Action): Promise<void>;
  /**
   * The stored conversation `viewer` sees in `chat` (current epoch, oldest first, the newest `limit`
   * messages): user and assistant text, and pending approval prompts with their buttons.
   */
  conversation?(chat: ChatRef, viewer: { id: string }, limit: number): Promise<ConversationEntry[]>;
}

export interface ChannelAdapter {
  /**
   * Instance id, unique per process: in session keys, Inbound/ChatRef/SentRef.channel, admin ids
   * ("<id>:<user>") and so in the sessions button tokens belong to. Two bots of one platform have two ids.
   */
  readonly id: string;
  /** The platform: 'telegram' | 'discord' | 'feishu' | 'web' | 'memory' ... */
  readonly kind: string;
  readonly capabilities: ChannelCapabilities;
  start(sink: InboundSink): Promise<void>;
  stop(): Promise<void>;
  send(chat: ChatRef, message: OutboundMessage): Promise<SentRef>;
  edit(ref: SentRef, message: OutboundMessage): Promise<void>;
  /** Present when `capabilities.hasTyping`. */
  typing?(chat: ChatRef): Promise<void>;
  /** Optional: show tool activity compactly (the web console does). */
  showActivity?(chat: ChatRef, activity: ToolActivity): Promise<void>;
  /** Optional: lines for the start-up block ("web console at http://..."). */
  describe?(): string[];
  /** Optional: the name people type after @ to mention the bot in a group (its username), once known. */
  mentionName?(): string | undefined;
  /**
   * Optional: the language most people of this channel use, where the platform implies one though
   * its events tell none (Feishu's China domain: `zh-CN`); the bot's texts fall back to it for a
   * message whose sender's language and script say nothing (a bare /help).
   */
  readonly usualLocale?: string;
  /** Optional: register HTTP endpoints (console, webhooks) on the process's one listener; called once, before start(). */
  routes?(http: HttpRoutes): void;
  /** Optional: user ids this channel itself vouches for as admins (added to PARLEY_ADMINS); known before start(). */
  readonly admins?: readonly string[];
  /** Optional: the admin pages' access to the running bot (the web console's admin sections); called once, before start(). */
  useAdmin?(port: AdminPort): void;
  /**
   * Optional: the receiver only one process may run at a time (Telegram long polling, a Discord
   * gateway session, a Feishu long connection). Called once, before start(); when it returns a
   * receiver, start() brings up only the sending side and the core runs the receiver while this
   * process holds the channel's receiver lease (src/cluster/receivers.ts). Undefined (webhooks):
   * every process receives.
   */
  exclusiveReceiver?(): ExclusiveReceiver | undefined;
  /**
   * Optional: opens the download of an attachment this adapter reported (by its `ref`), for the
   * core's media intake (src/media). The adapter resolves the platform's download path (Telegram
   * getFile, a Discord CDN URL, a Feishu message resource, a web upload) and returns the response
   * body unread: the core streams it with its own size cap, timeout and content check. Throws
   * AttachmentFetchError for what the platform refuses (gone, expired, too big to serve).
   */
  fetchAttachment?(attachment: Attachment, options: AttachmentFetchOptions): Promise<AttachmentDownload>;
}

export interface AttachmentFetchOptions {
  /** Aborts the download (the core's timeout, the turn's stop). */
  signal: AbortSignal;
  /** The core's cap in bytes; an adapter that knows the size in advance may refuse early. */
  maxBytes: number;
}

/** An attachment's bytes, not yet read. */
export interface AttachmentDownload {
  body: ReadableStream<Uint8Array>;
  /** What the platform says it is; the core checks the bytes, not this. */
  contentType?: string;
  /** Bytes, when the platform tells (Content-Length). */
  size?: number;
}

/** Why an attachment could not be downloaded, in words the chat can be shown. */
export class AttachmentFetchError extends Error {
  readonly reason: 'not-found' | 'expired' | 'too-large' | 'refused' | 'unavailable';
  constructor(reason: AttachmentFetchError['reason'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AttachmentFetchError';
    this.reason = reason;
  }
}

/** A channel's exclusive receiver, started and stopped by whichever process holds its lease. */
export interface ExclusiveReceiver {
  /**
   * Resolves once receiving; `onEnded` is called if it later stops by itself (an error, a conflict).
   * `resumeFrom` is the last `state()` the previous holder stored (to resume its session).
   */
  start(onEnded: (error: unknown) => void, resumeFrom?: string): Promise<void>;
  /** Stops receiving and waits for the updates in hand; the sending side stays up. */
  stop(): Promise<void>;
  /** A resumable state to keep with the lease (written once per beat while receiving). */
  state?(): string | undefined;
}

/** A web-standard request handler: Hono's `app.fetch`, grammY's `webhookCallback(bot, 'std/http')`. */
export type HttpHandler = (request: Request) => Response | Promise<Response>;

/** The process's one HTTP listener (src/http), as adapters see it. */
export interface HttpRoutes {
  /**
   * Serves every request whose path is `prefix` or below it; the longest prefix wins and '/' takes
   * what no other mount claims. The handler sees the full path. Allowed after the host listens
   * (e.g. from start()); returns a function that removes the mount.
   */
  mount(prefix: string, handler: HttpHandler): () => void;
  /** `http://host:port` of the listener (the real port once it listens). */
  readonly url: string;
}

/** The logging surface adapters get (pino's Logger satisfies it). */
export interface CoreLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

interface ChannelFactoryContext {
  env: Record<string, string | undefined>;
  log: CoreLogger;
  botName: string;
  /** Folder for the channel's small per-install files (beside the SQLite database; ./data otherwise). */
  dataDir?: string;
  /** What people can type, for the platform's command menu: Parley's (COMMANDS) and a project's own plugins' (default: COMMANDS). */
  commands?: readonly CommandInfo[];
}

/**
 * How src/main.ts finds channels: each adapter folder exports one. `fromEnv` returns undefined
 * when the channel is not configured, and throws ConfigError (src/core/env.ts) when it is
 * configured wrongly.
 */
export interface ChannelFactory {
  /** The platform kind (also the default instance id). */
  kind: string;
  fromEnv(context: ChannelFactoryContext): Promise<ChannelAdapter | undefined> | ChannelAdapter | undefined;
}
