// An in-memory channel that behaves like a real one: it keeps every sent message with its edit
import { randomUUID } from 'node:crypto';
// history and buttons, refuses edits of unknown messages, records typing and tool activity, and
// records each button press's toast (answered once, like Telegram's answerCallbackQuery).
import {
  type Action,
  type Attachment,
  type AttachmentDownload,
  AttachmentFetchError,
  type AttachmentFetchOptions,
  type Button,
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChatRef,
  type ChatType,
  type Inbound,
  type InboundSink,
  type OutboundMessage,
  type SentRef,
  type ToolActivity,
} from '../../src/core/types.ts';
import { answerOnce } from '../../src/core/ack.ts';
import { DeliveryError } from '../../src/core/delivery.ts';

export interface FakeMessage {
  id: string;
  chat: ChatRef;
  text: string;
  buttons: Button[][];
  /** The buttons it was sent with (edits may remove them). */
  sentButtons: Button[][];
  replyToMessageId?: string;
  /** Every text this message has shown, first to last. */
  versions: string[];
  fromBot: boolean;
}

export interface FakeUser {
  id: string;
  name: string;
  isBot?: boolean;
}

export interface SayOptions {
  from?: FakeUser;
  chatId?: string;
  chatType?: ChatType;
  threadId?: string;
  mention?: boolean;
  replyTo?: string;
  eventId?: string;
  /** The sender's language as a platform would tag it (e.g. Telegram's "zh-hans"). */
  locale?: string;
  /** Files sent with the message (serve their bytes with `serveFile`). */
  attachments?: Attachment[];
  /** The chat's name, sent with the message as platforms with titled groups do. */
  chatTitle?: string;
}

/** What fetchAttachment gives for a ref: bytes (streamed in chunks), or a refusal like a platform's. */
export type ServedFile =
  | { bytes: Buffer; contentType?: string; chunkSize?: number; size?: number }
  | { error: AttachmentFetchError }
  /** Sends the first bytes, then never the rest (a stalled download). */
  | { stallAfter: Buffer };

export interface Toast {
  userId: string;
  text: string | undefined;
  messageId: string;
}

export const ALICE: FakeUser = { id: 'u-alice', name: 'Alice' };
export const BOB: FakeUser = { id: 'u-bob', name: 'Bob' };
export const CAROL: FakeUser = { id: 'u-carol', name: 'Carol' };

export class MemoryAdapter implements ChannelAdapter {
  readonly id: string;
  readonly kind = 'memory';
  readonly capabilities: ChannelCapabilities;
  readonly messages = new Map<string, FakeMessage>();
  readonly toasts: Toast[] = [];
  /** What was told to one person after their press was acknowledged. */
  readonly whispers: Toast[] = [];
  readonly activity: ToolActivity[] = [];
  typingCount = 0;
  edits = 0;
  #sink: InboundSink | undefined;
  #nextId = 1;
  #nextEvent = 1;
  readonly #files = new Map<string, ServedFile>();
  /** Every fetchAttachment call: the ref and the cap it was given. */
  readonly fetches: { ref: string; maxBytes: number }[] = [];

  constructor(options: { id?: string; capabilities?: Partial<ChannelCapabilities> } = {}) {
    this.id = options.id ?? 'memory';
    this.capabilities = {
      maxTextLength: 4096,
      maxButtonPayload: 64,
      canEdit: true,
      canButtons: true,
      canEphemeral: false,
      hasThreads: true,
      hasTyping: true,
      repliesInDirect: false,
      editIntervalMs: { direct: 0, group: 0 },
      ...options.capabilities,
    };
  }

  async start(sink: InboundSink): Promise<void> {
    this.#sink = sink;
  }

  async stop(): Promise<void> {
    this.#sink = undefined;
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    this.#checkLength(message.text);
    const oversized = message.buttons?.flat().find((b) => Buffer.byteLength(b.payload) > this.capabilities.maxButtonPayload);
    if (oversized)
      throw new DeliveryError(`button payload longer than ${this.capabilities.maxButtonPayload} bytes: ${oversized.payload}`, 'fatal');
    const id = String(this.#nextId++);
    this.messages.set(id, {
      id,
      chat,
      text: message.text,
      buttons: message.buttons ?? [],
      sentButtons: message.buttons ?? [],
      replyToMessageId: message.replyToMessageId,
      versions: [message.text],
      fromBot: true,
    });
    return { channel: this.id, chatId: chat.chatId, messageId: id, ...(chat.threadId ? { threadId: chat.threadId } : {}) };
  }

  async edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    const existing = this.messages.get(ref.messageId);
    if (!existing) throw new DeliveryError(`message ${ref.messageId} not found`, 'gone');
    // Strict on purpose: the core never asks for an edit that changes nothing.
    if (existing.text === message.text && message.buttons === undefined) throw new DeliveryError('message is not modified', 'fatal');
    this.#checkLength(message.text);
    existing.text = message.text;
    existing.versions.push(message.text);
    if (message.buttons !== undefined) existing.buttons = message.buttons;
    this.edits++;
  }

  #checkLength(text: string): void {
    if (text.length > this.capabilities.maxTextLength) throw new DeliveryError(`message too long (${text.length})`, 'too_large');
  }

  async typing(): Promise<void> {
    this.typingCount++;
  }

  async showActivity(_chat: ChatRef, activity: ToolActivity): Promise<void> {
    this.activity.push(activity);
  }

  /** fetchAttachment serves `file` for attachments with this ref. */
  serveFile(ref: string, file: ServedFile): this {
    this.#files.set(ref, file);
    return this;
  }

  async fetchAttachment(attachment: Attachment, options: AttachmentFetchOptions): Promise<AttachmentDownload> {
    this.fetches.push({ ref: attachment.ref, maxBytes: options.maxBytes });
    const file = this.#files.get(attachment.ref);
    if (!file) throw new AttachmentFetchError('not-found', `no file ${attachment.ref}`);
    if ('error' in file) throw file.error;
    if ('stallAfter' in file) {
      const head = file.stallAfter;
      return {
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new Uint8Array(head));
          },
        }),
      };
    }
    const chunk = file.chunkSize ?? 64 * 1024;
    let at = 0;
    return {
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (at >= file.bytes.length) return controller.close();
          controller.enqueue(new Uint8Array(file.bytes.subarray(at, at + chunk)));
          at += chunk;
        },
      }),
      ...(file.contentType ? { contentType: file.contentType } : {}),
      ...(file.size !== undefined ? { size: file.size } : {}),
    };
  }

  /** A person writes in a chat. Resolves once the gateway has accepted (not answered) it. */
  async say(text: string, options: SayOptions = {}): Promise<Inbound> {
    if (!this.#sink) throw new Error('adapter not started');
    const from = options.from ?? ALICE;
    const chatType = options.chatType ?? 'direct';
    const id = String(this.#nextId++);
    const chat: ChatRef = {
      channel: this.id,
      chatId: options.chatId ?? (chatType === 'direct' ? `dm-${from.id}` : 'group-1'),
      chatType,
      ...(options.threadId ? { threadId: options.threadId } : {}),
    };
    this.messages.set(id, { id, chat, text, buttons: [], sentButtons: [], versions: [text], fromBot: false });
    const replyTarget = options.replyTo ? this.messages.get(options.replyTo) : undefined;
    const inbound: Inbound = {
      channel: this.id,
      chatId: chat.chatId,
      chatType,
      ...(options.threadId ? { threadId: options.threadId } : {}),
      messageId: id,
      eventId: options.eventId ?? `evt-${this.#nextEvent++}-${randomUUID()}`,
      sender: { id: from.id, displayName: from.name, isBot: from.isBot ?? false },
      text,
      attachments: options.attachments ?? [],
      mentionsBot: options.mention ?? false,
      repliesToBot: replyTarget?.fromBot ?? false,
      ...(options.replyTo ? { replyToMessageId: options.replyTo } : {}),
      ...(options.locale ? { locale: options.locale } : {}),
      receivedAt: new Date(),
      ...(options.chatTitle ? { chatTitle: options.chatTitle } : {}),
    };
    await this.#sink.onMessage(inbound);
    return inbound;
  }

  /** Deliver an inbound exactly as given (e.g. a re-delivery with the same event id). */
  async deliver(inbound: Inbound): Promise<void> {
    if (!this.#sink) throw new Error('adapter not started');
    await this.#sink.onMessage(inbound);
  }

  /** A person presses a button (by label) on a bot message. Resolves with the toast they saw. */
  async click(messageId: string, label: string, by: FakeUser = ALICE): Promise<string | undefined> {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`no message ${messageId}`);
    const button = message.buttons.flat().find((b) => b.label === label);
    if (!button)
      throw new Error(
        `message ${messageId} has no button "${label}" (has: ${
          message.buttons
            .flat()
            .map((b) => b.label)
            .join(', ') || 'none'
        })`,
      );
    return this.press(message, button.payload, by);
  }

  /** Press with an arbitrary payload (forged or stale buttons). */
  async press(message: FakeMessage, payload: string, by: FakeUser = ALICE): Promise<string | undefined> {
    if (!this.#sink) throw new Error('adapter not started');
    let toast: string | undefined;
    const answer = answerOnce(async (text) => {
      toast = text;
      this.toasts.push({ userId: by.id, text, messageId: message.id });
    });
    const action: Action = {
      channel: this.id,
      chatId: message.chat.chatId,
      chatType: message.chat.chatType,
      ...(message.chat.threadId ? { threadId: message.chat.threadId } : {}),
      messageId: message.id,
      userId: by.id,
      displayName: by.name,
      payload,
      reply: { ack: answer.ack, whisper: async (text) => void this.whispers.push({ userId: by.id, text, messageId: message.id }) },
    };
    await this.#sink.onAction(action);
    if (!answer.answered) throw new Error('the button press was never acknowledged');
    return toast;
  }

  botMessages(chatId?: string): FakeMessage[] {
    return [...this.messages.values()].filter((m) => m.fromBot && (!chatId || m.chat.chatId === chatId));
  }

  lastBotMessage(chatId?: string): FakeMessage | undefined {
    return this.botMessages(chatId).at(-1);
  }

  /** Bot messages sent as approval prompts (with buttons, or the text form), decided or not. */
  prompts(chatId?: string): FakeMessage[] {
    return this.botMessages(chatId).filter((m) => m.sentButtons.length > 0 || m.versions[0]!.includes('Approval needed'));
  }
}
