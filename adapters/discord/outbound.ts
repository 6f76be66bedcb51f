// Sending, editing and typing through discord.js's REST client (its rate-limit queue waits out
// 429s). Everything is addressed by id, so a turn can reply from any process without a cache.
// Failures are DeliveryErrors; a channel the bot lost access to is logged once and left alone for
// a while (not retried forever).
import { Routes, type REST } from 'discord.js';
import { z } from 'zod';
import type { ChatRef, CoreLogger, OutboundMessage, SentRef } from '../../src/core/types.ts';
import { DeliveryError } from '../../src/core/delivery.ts';
import { isChannelLost, safeErrorMessage, toDeliveryError } from './errors.ts';
import { bodyOf } from './render.ts';

export interface OutboundOptions {
  rest: REST;
  channel: string;
  token: string;
  log: CoreLogger;
  /** How long a lost channel is left alone before the next attempt. */
  goneRetryMs: number;
}

const SentMessageSchema = z.object({ id: z.string().min(1), channel_id: z.string().min(1), content: z.string().optional() });

/** Where a message to this chat goes: the thread when there is one. */
function targetOf(chat: Pick<ChatRef, 'chatId' | 'threadId'>): string {
  return chat.threadId ?? chat.chatId;
}

function channelLost(channelId: string): DeliveryError {
  return new DeliveryError(`Discord channel ${channelId} is no longer reachable for the bot (removed, or permissions lost)`, 'forbidden');
}

export class DiscordOutbound {
  readonly #o: OutboundOptions;
  /** Channel → when to try it again. */
  readonly #gone = new Map<string, number>();
  /** Channels whose loss was logged (cleared when a send there works again). */
  readonly #logged = new Set<string>();

  constructor(options: OutboundOptions) {
    this.#o = options;
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    const target = targetOf(chat);
    const body = bodyOf(message);
    const raw = await this.#call(target, () => this.#o.rest.post(Routes.channelMessages(target), { body }));
    const sent = SentMessageSchema.parse(raw);
    // A repeated send (same nonce) returned the first message, which may show older text.
    if (body.enforce_nonce && sent.content !== undefined && sent.content !== body.content) {
      await this.#call(target, () => this.#o.rest.patch(Routes.channelMessage(target, sent.id), { body: bodyOf(message, true) }));
    }
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

  async typing(chat: ChatRef): Promise<void> {
    const target = targetOf(chat);
    if (this.#isGone(target)) return;
    await this.#o.rest.post(Routes.channelTyping(target)).catch((error: unknown) => {
      if (isChannelLost(error)) this.#markGone(target, error);
    });
  }

  async #call<T>(target: string, request: () => Promise<T>): Promise<T> {
    if (this.#isGone(target)) throw channelLost(target);
    try {
      const result = await request();
      this.#logged.delete(target);
      return result;
    } catch (error) {
      if (isChannelLost(error)) this.#markGone(target, error);
      throw toDeliveryError(error, this.#o.token);
    }
  }

  #isGone(target: string): boolean {
    const until = this.#gone.get(target);
    if (until === undefined) return false;
    if (Date.now() < until) return true;
    this.#gone.delete(target);
    return false;
  }

  #markGone(target: string, error: unknown): void {
    this.#gone.set(target, Date.now() + this.#o.goneRetryMs);
    if (this.#logged.has(target)) return;
    this.#logged.add(target);
    const minutes = Math.round(this.#o.goneRetryMs / 60_000);
    this.#o.log.warn(
      { channelId: target },
      `Discord channel ${target} is gone for the bot (${safeErrorMessage(error, this.#o.token)}); not sending there for ${minutes} min (re-add the bot or its permissions)`,
    );
  }
}
