// How the gateway talks back: short replies to a chat, and a renderer per turn that streams the
// answer through the chat's adapter. A turn's delivery may outlast the turn (a send retried while
// the platform refuses it) without holding the session up: the chat's next renderer sends nothing
// before the previous one has delivered, so answers keep their order.
import { errorText } from '../core/errors.ts';
import { localeOrDefault } from '../core/i18n/index.ts';
import type { ChannelAdapter, ChatRef, Inbound } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { OwedAnswer } from '../store/repos/owed-answers.ts';
import { owedRecord } from '../store/repos/owed-answers.ts';
import type { Store } from '../store/store.ts';
import type { ReplyState, TurnRecord } from '../store/types.ts';
import { OwedDelivery } from './owed.ts';
import { persist } from './persist.ts';
import { promptKey, replyKey } from './send-keys.ts';
import { ReplyRenderer, type ApprovalPromptSink } from './renderer.ts';

const PAUSED_KEPT_MS = 60 * 60_000;
/** How long a prompt nobody saw is retried while the chat service refuses it. */
const PROMPT_BUDGET_MS = 120_000;

export interface OutputOptions {
  store: Store;
  adapters: Map<string, ChannelAdapter>;
  log: Logger;
  prompts?: ApprovalPromptSink;
  /** This process's lease owner: names it in the records of the answers it owes. */
  owner: string;
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
   * messages that renderer sent, even when recording them failed as well. `claimed`: the turn's
   * owed answer, which this process has taken over (see redeliver).
   */
  async renderer({ id: turnId, origin }: TurnRecord, claimed?: OwedAnswer): Promise<ReplyRenderer | undefined> {
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
      locale: localeOrDefault(origin.locale),
      replyToMessageId: origin.replyToMessageId,
      log: this.#o.log,
      ...(this.#o.prompts ? { prompts: this.#o.prompts } : {}),
      ...(after ? { after } : {}),
      ...(handoff ? { handoff } : {}),
      turnId,
      saveReplyState: (state) => this.#o.store.turns.saveReplyState(turnId, state),
      owed: new OwedDelivery(this.#o.store.owedAnswers, turnId, this.#o.owner, claimed),
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

  /**
   * Delivers what a process that is gone owed: claims its record (false when another process was
   * first, or the record changed), then sends the turn's answer, editing the messages that already
   * show it, or the approval prompts nobody saw, and clears the record once delivered.
   */
  async redeliver(owed: OwedAnswer): Promise<boolean> {
    const { store } = this.#o;
    const turn = await store.turns.get(owed.turnId);
    // Left to a process that serves the chat's channel.
    if (!turn || !this.#o.adapters.has(turn.origin.chat.channel)) return false;
    const claimed: OwedAnswer = { ...owed, by: this.#o.owner, raw: owedRecord(this.#o.owner, owed.reply) };
    if (!(await store.owedAnswers.claim(owed, claimed.raw))) return false;
    if (owed.kind === 'prompts') {
      await this.promptsShown(turn);
      return true;
    }
    const renderer = await this.renderer(turn, claimed);
    if (!renderer) return false;
    const rounds = (await store.messages.forTurn(turn.id)).filter((m) => m.role === 'assistant').map((m) => m.content);
    const text = rounds
      .slice(owed.reply.fromRound - 1)
      .filter((t) => t.trim())
      .join('\n\n');
    renderer.handle({ type: 'turn_start', turnId: turn.id, sessionId: turn.sessionId, resumed: true, reply: { ...owed.reply, rounds } });
    renderer.handle({ type: 'turn_end', turnId: turn.id, status: 'done', text, usage: turn.usage, rounds: turn.rounds });
    await renderer.close();
    return true;
  }

  /**
   * A suspended turn's prompts are out (its renderer has closed): any pending approval of the turn
   * that has no prompt message (a continued turn suspends without emitting its prompts; a process
   * died before sending them) gets one now, then the turn owes no prompts any more.
   */
  async promptsShown(turn: TurnRecord): Promise<void> {
    const { store, prompts, log } = this.#o;
    const adapter = this.#o.adapters.get(turn.origin.chat.channel);
    const unseen = (await store.approvals.forTurn(turn.id)).filter((a) => a.status === 'pending' && !a.promptRef);
    if (prompts && adapter) {
      for (const approval of unseen) {
        const message = {
          ...prompts.render(approval, undefined, turn.origin.chat, localeOrDefault(turn.origin.locale)),
          idempotencyKey: promptKey(approval.id),
        };
        const sent = await persist(async () => void (await prompts.sent(approval, await adapter.send(turn.origin.chat, message))), {
          budgetMs: PROMPT_BUDGET_MS,
        });
        if (!sent.ok) log.error({ err: sent.error, turnId: turn.id }, `could not send an approval prompt: ${errorText(sent.error)}`);
      }
    }
    await store.owedAnswers.settle(turn.id, 'prompts', this.#o.owner);
  }

  /** A turn that ended with nothing to show here (no adapter for its chat): it owes nothing. */
  async nothingOwed(turnId: string): Promise<void> {
    await this.#o.store.owedAnswers.settle(turnId, 'answer', this.#o.owner);
  }

  #forget(turnId: string, renderer: ReplyRenderer): void {
    if (this.#byTurn.get(turnId) === renderer) this.#byTurn.delete(turnId);
  }

  async reply(chat: ChatRef, text: string, inReplyTo?: Inbound): Promise<void> {
    const adapter = this.#o.adapters.get(chat.channel);
    if (!adapter) return;
    try {
      const replyTo = inReplyTo && (chat.chatType === 'group' || adapter.capabilities.repliesInDirect) ? inReplyTo.messageId : undefined;
      await adapter.send(chat, {
        text,
        ...(replyTo ? { replyToMessageId: replyTo } : {}),
        ...(inReplyTo ? { idempotencyKey: replyKey(inReplyTo, text) } : {}),
      });
    } catch (error) {
      this.#o.log.warn({ err: error, chat }, `could not send a reply: ${errorText(error)}`);
    }
  }
}
