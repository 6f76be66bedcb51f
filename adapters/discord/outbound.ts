// Sending, editing and typing through discord.js's REST client (its rate-limit queue waits out
// 429s). Everything is addressed by id, so a turn can reply from any process without a cache.
// A channel the bot lost access to is logged once and not tried again by this process.
import { Routes, type REST } from 'discord.js';
import { z } from 'zod';
import type { ChatRef, CoreLogger, OutboundMessage, SentRef } from '../../src/core/types.ts';
import { isGone, safeErrorMessage, toSafeError } from './errors.ts';
import { bodyOf } from './render.ts';

export interface OutboundOptions {
  rest: REST;
  channel: string;
  token: string;
  log: CoreLogger;
}

const SentMessageSchema = z.object({ id: z.string().min(1), channel_id: z.string().min(1) });

/** Where a message to this chat goes: the thread when there is one. */
export function targetOf(chat: Pick<ChatRef, 'chatId' | 'threadId'>): string {
  return chat.threadId ?? chat.chatId;
}

export class ChannelGoneError extends Error {
  constructor(channelId: string) {
    super(`Discord channel ${channelId} is no longer reachable for the bot (removed, or permissions lost)`);
    this.name = 'ChannelGoneError';
  }
}

export class DiscordOutbound {
  readonly #o: OutboundOptions;
  readonly #gone = new Set<string>();

  constructor(options: OutboundOptions) {
    this.#o = options;
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    const target = targetOf(chat);
    const raw = await this.#call(target, () => this.#o.rest.post(Routes.channelMessages(target), { body: bodyOf(message) }));
    const sent = SentMessageSchema.parse(raw);
    return {
      channel: this.#o.channel,
      chatId: chat.chatId,
      messageId: sent.id,
      ...(chat.threadId ? { threadId: chat.threadId } : {}),
    };
  }

  async edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    const target = targetOf(ref);
    await this.#call(target, () => this.#o.rest.patch(Routes.channelMessage(target, ref.messageId), { body: bodyOf(message, true) }));
  }

  /** A message arrived from there: the bot can see it again (re-added, permissions restored). */
  reachable(chat: Pick<ChatRef, 'chatId' | 'threadId'>): void {
    this.#gone.delete(targetOf(chat));
  }

  async typing(chat: ChatRef): Promise<void> {
    const target = targetOf(chat);
    if (this.#gone.has(target)) return;
    await this.#o.rest.post(Routes.channelTyping(target)).catch((error: unknown) => {
      if (isGone(error)) this.#markGone(target, error);
    });
  }

  async #call<T>(target: string, request: () => Promise<T>): Promise<T> {
    if (this.#gone.has(target)) throw new ChannelGoneError(target);
    try {
      return await request();
    } catch (error) {
      if (isGone(error)) {
        this.#markGone(target, error);
        throw new ChannelGoneError(target);
      }
      throw toSafeError(error, this.#o.token);
    }
  }

  #markGone(target: string, error: unknown): void {
    if (this.#gone.has(target)) return;
    this.#gone.add(target);
    this.#o.log.warn({ channelId: target }, `Discord channel ${target} is gone for the bot (${safeErrorMessage(error, this.#o.token)}); not sending there again until a message arrives from it`);
  }
}
