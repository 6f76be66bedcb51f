// The neutral contract between channel adapters and the core. Adapters import only this folder
// (and their own SDK); the core never learns what Telegram or Discord is.
import { z } from 'zod';

export const ChatTypeSchema = z.enum(['direct', 'group']);
export type ChatType = z.infer<typeof ChatTypeSchema>;

/**
 * Free text from people, made storable: PostgreSQL refuses NUL characters, and unpaired UTF-16
 * surrogates (which no UTF-8 platform can send, but a forged payload can) break the database
 * drivers, so NULs are dropped and lone surrogates become U+FFFD.
 */
export const PersonTextSchema = z
  .string()
  .transform((text) => text.replace(/\u0000/g, '').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

export const SenderSchema = z.object({
  id: z.string().min(1),
  displayName: PersonTextSchema,
  isBot: z.boolean(),
});
export type Sender = z.infer<typeof SenderSchema>;

/**
 * One message addressed to (or seen by) the bot, as every adapter reports it.
 * Commands are normalised by the adapter: `/cmd@thisbot args` arrives as `/cmd args`; a command
 * addressed to another bot is not reported at all.
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
  mentionsBot: z.boolean(),
  repliesToBot: z.boolean(),
  replyToMessageId: z.string().optional(),
  receivedAt: z.coerce.date(),
});
export type Inbound = z.infer<typeof InboundSchema>;

/** Where a message goes. Serialisable, so a turn can reply from any process. */
export const ChatRefSchema = z.object({
  channel: z.string().min(1),
  chatId: z.string().min(1),
  chatType: ChatTypeSchema,
  threadId: z.string().min(1).optional(),
});
export type ChatRef = z.infer<typeof ChatRefSchema>;

export const ButtonSchema = z.object({
  label: z.string().min(1),
  /** Opaque token, at most 64 bytes (Telegram's callback_data limit). */
  payload: z.string().min(1).max(64),
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

/** A button press, normalised. `ack` must be called exactly once (the adapter makes a second call a no-op). */
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
  /** Acknowledge the press; `toast` is shown to the presser alone where the platform allows. */
  ack(toast?: string): Promise<void>;
}

export interface ToolActivity {
  phase: 'start' | 'end';
  callId: string;
  tool: string;
  /** Short human description, e.g. "searching knowledge…". */
  label: string;
  ok?: boolean;
}

export interface AdapterCapabilities {
  maxTextLength: number;
  canEdit: boolean;
  canButtons: boolean;
  /** Minimum pause between streaming edits of one message. */
  editIntervalMs: { direct: number; group: number };
}

export interface InboundSink {
  onMessage(inbound: Inbound): Promise<void>;
  onAction(action: Action): Promise<void>;
}

export interface ChannelAdapter {
  readonly name: string;
  readonly capabilities: AdapterCapabilities;
  start(sink: InboundSink): Promise<void>;
  stop(): Promise<void>;
  send(chat: ChatRef, message: OutboundMessage): Promise<SentRef>;
  edit(ref: SentRef, message: OutboundMessage): Promise<void>;
  typing(chat: ChatRef): Promise<void>;
  /** Optional: show tool activity compactly (the web console does). */
  showActivity?(chat: ChatRef, activity: ToolActivity): Promise<void>;
  /** Optional: lines for the start-up block ("web console at http://..."). */
  describe?(): string[];
  /** Optional: register HTTP endpoints (console, webhooks) on the process's one listener; called once, before start(). */
  routes?(http: HttpRoutes): void;
  /** Optional: user ids this channel itself vouches for as admins (added to PARLEY_ADMINS); known before start(). */
  readonly admins?: readonly string[];
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

export interface ChannelFactoryContext {
  env: Record<string, string | undefined>;
  log: CoreLogger;
  botName: string;
  /** Folder for the channel's small per-install files (beside the SQLite database; ./data otherwise). */
  dataDir?: string;
}

/**
 * How src/main.ts finds channels: each adapter folder exports one. `fromEnv` returns undefined
 * when the channel is not configured, and throws ConfigError (src/core/env.ts) when it is
 * configured wrongly.
 */
export interface ChannelFactory {
  name: string;
  fromEnv(context: ChannelFactoryContext): Promise<ChannelAdapter | undefined> | ChannelAdapter | undefined;
}
