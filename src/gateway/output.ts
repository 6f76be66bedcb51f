// How the gateway talks back: short replies to a chat, and a renderer per turn that streams the
// answer through the chat's adapter. A turn's delivery may outlast the turn (a send retried while
// the platform refuses it) without holding the session up: the chat's next renderer sends nothing
// before the previous one has delivered, so answers keep their order.
import { errorText } from '../core/errors.ts';
import type { ChannelAdapter, ChatRef, Inbound } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { TurnRecord } from '../store/types.ts';
import { ReplyRenderer, type ApprovalPromptSink } from './renderer.ts';

export interface OutputOptions {
  store: Store;
  adapters: Map<string, ChannelAdapter>;
  log: Logger;
  prompts?: ApprovalPromptSink;
}

export class Output {
  readonly #o: OutputOptions;
  /** Per chat: settles when the last renderer opened for it has delivered everything. */
  readonly #tails = new Map<string, Promise<void>>();

  constructor(options: OutputOptions) {
    this.#o = options;
  }

  renderer({ id: turnId, origin }: TurnRecord): ReplyRenderer | undefined {
    const adapter = this.#o.adapters.get(origin.chat.channel);
    if (!adapter) {
      this.#o.log.warn({ channel: origin.chat.channel }, 'no adapter for this channel in this process; replies are not shown');
      return undefined;
    }
    const key = [origin.chat.channel, origin.chat.chatId, origin.chat.threadId ?? ''].join('\u0000');
    const after = this.#tails.get(key);
    const renderer = new ReplyRenderer({
      adapter,
      chat: origin.chat,
      replyToMessageId: origin.replyToMessageId,
      log: this.#o.log,
      ...(this.#o.prompts ? { prompts: this.#o.prompts } : {}),
      ...(after ? { after } : {}),
      saveReplyState: async (state) => void (await this.#o.store.turns.saveReplyState(turnId, state)),
    });
    const tail = renderer.closed;
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return renderer;
  }

  async reply(chat: ChatRef, text: string, inReplyTo?: Inbound): Promise<void> {
    const adapter = this.#o.adapters.get(chat.channel);
    if (!adapter) return;
    try {
      const replyTo = inReplyTo && (chat.chatType === 'group' || adapter.capabilities.repliesInDirect) ? inReplyTo.messageId : undefined;
      await adapter.send(chat, { text, ...(replyTo ? { replyToMessageId: replyTo } : {}) });
    } catch (error) {
      this.#o.log.warn({ err: error, chat }, `could not send a reply: ${errorText(error)}`);
    }
  }
}
