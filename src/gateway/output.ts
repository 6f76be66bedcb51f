// How the gateway talks back: short replies to a chat, and a renderer per turn that streams the
// answer through the chat's adapter. A turn's delivery may outlast the turn (a send retried while
// the platform refuses it) without holding the session up: the chat's next renderer sends nothing
// before the previous one has delivered, so answers keep their order.
import { errorText } from '../core/errors.ts';
import type { ChannelAdapter, ChatRef, Inbound } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { ReplyState, TurnRecord } from '../store/types.ts';
import { ReplyRenderer, type ApprovalPromptSink } from './renderer.ts';

const PAUSED_KEPT_MS = 60 * 60_000;

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
  /** Per turn: its last renderer here, kept while the turn is paused so a continuation takes its messages over. */
  readonly #byTurn = new Map<string, ReplyRenderer>();

  constructor(options: OutputOptions) {
    this.#o = options;
  }

  /**
   * A renderer for the turn. A turn this process paused (its storage failed) is continued in the
   * messages that renderer sent, even when recording them failed as well.
   */
  async renderer({ id: turnId, origin }: TurnRecord): Promise<ReplyRenderer | undefined> {
    const previous = this.#byTurn.get(turnId);
    let handoff: ReplyState | undefined;
    if (previous?.pausedState) {
      await previous.closed;
      handoff = previous.pausedState;
    }
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
      ...(handoff ? { handoff } : {}),
      turnId,
      saveReplyState: async (state) => void (await this.#o.store.turns.saveReplyState(turnId, state)),
    });
    const tail = renderer.closed;
    this.#tails.set(key, tail);
    this.#byTurn.set(turnId, renderer);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
      if (!renderer.pausedState) this.#forget(turnId, renderer);
      // A paused turn continued by another process (or never) must not be kept forever.
      else setTimeout(() => this.#forget(turnId, renderer), PAUSED_KEPT_MS).unref();
    });
    return renderer;
  }

  #forget(turnId: string, renderer: ReplyRenderer): void {
    if (this.#byTurn.get(turnId) === renderer) this.#byTurn.delete(turnId);
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
