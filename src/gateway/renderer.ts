// Turns one turn's events into chat messages: the answer appears as one message edited in place
// as text streams in (paced per the adapter's edit interval, unchanged text never re-sent), split
// over several messages past the platform's length limit; approval prompts follow the text.
// Streaming edits are best effort and coalesced (at most one waits in the queue); the final answer
// and approval prompts are retried until they land, and a chat whose answer cannot be delivered is
// told so. While the model is busy, the chat is told once (a placeholder the answer replaces).
import { deliveryFailureOf } from '../core/delivery.ts';
import { errorText } from '../core/errors.ts';
import { watchAttempts } from '../core/delivery-delays.ts';
import { failpoint } from '../core/failpoint.ts';
import { DEFAULT_LOCALE, type Locale, t, type Wording, wordingText } from '../core/i18n/index.ts';
import { splitMessage } from '../core/text-split.ts';
import type { ChannelAdapter, ChatRef, OutboundMessage, SentRef } from '../core/types.ts';
import type { AgentEvent } from '../agent/events.ts';
import type { Logger } from '../log.ts';
import type { ApprovalRecord, ReplyState, UnsentPiece } from '../store/types.ts';
import { continuationOf } from './continuation.ts';
import type { OwedDelivery } from './owed.ts';
import { persist } from './persist.ts';
import { noticeKey, promptKey } from './send-keys.ts';

export interface ApprovalPromptSink {
  /** Builds the prompt for a gated call, in `locale`; `description` is the tool's words for the call, if any. */
  render(approval: ApprovalRecord, description: Wording | undefined, chat: ChatRef, locale: Locale): OutboundMessage;
  /** Called with the sent prompt, so it can be edited after the decision. */
  sent(approval: ApprovalRecord, ref: SentRef): Promise<void>;
}

export interface RendererOptions {
  adapter: ChannelAdapter;
  chat: ChatRef;
  /** The language of the bot's own words in this answer (markers, notices, prompts); English by default. */
  locale?: Locale;
  replyToMessageId?: string;
  log: Logger;
  prompts?: ApprovalPromptSink;
  typingIntervalMs?: number;
  /**
   * The typing indicator starts only when the turn is still running after this long (default 1 s):
   * a fast answer needs none, and it would cost a platform call per message (the Bot API asks bots
   * to show it only when an answer takes a noticeable time).
   */
  typingDelayMs?: number;
  /**
   * Records the answer's messages each time a new one is sent while it streams (not per edit), so
   * that after a crash the continued turn edits them in place (see `turn_start.reply`). False when
   * the turn was no longer running (its end was written first).
   */
  saveReplyState?: (state: ReplyState) => Promise<unknown>;
  /** How long a final answer or approval prompt is retried before the chat is told it failed. */
  deliveryBudgetMs?: number;
  /** Keys the answer's messages (turn, round, piece), so that a send repeated by a continuation makes no copy. */
  turnId?: string;
  /** Nothing is sent before this settles: the previous turn's delivery in the same chat (keeps order). */
  after?: Promise<unknown>;
  /**
   * What this process's earlier renderer of the same turn was showing when the turn paused (its
   * storage failed). Newer than the stored reply state when storing it failed too.
   */
  handoff?: ReplyState;
  /**
   * The answer's (or the approval prompts') record as owed, which the turn's finishing (suspending)
   * write made: updated with the messages sent, cleared once delivered. Should this process die
   * first, another one (or the next start) delivers it.
   */
  owed?: OwedDelivery;
}

interface SentPiece {
  ref: SentRef;
  text: string;
  /** Sent by a process that went away mid-answer; its text is unknown here. */
  inherited?: boolean;
  /** Shown as the marked continuation of a message that was never recorded (see continuation.ts). */
  continued?: boolean;
}

type RenderPhase = 'streaming' | 'final' | 'paused';

const DELIVERY_BUDGET_MS = 120_000;
/** The first streamed part is shown this long after the text starts (imperceptible next to a model's pace). */
const FIRST_RENDER_DELAY_MS = 40;

/** How long a complete answer waits for its write (turn_end) before a pending render shows it anyway. */
const COMPLETE_ANSWER_WAIT_MS = 1_000;
const NOTICE_BUDGET_MS = 30_000;

export class ReplyRenderer {
  readonly #o: RendererOptions;
  #text = '';
  #round = 0;
  #fromRound = 1;
  readonly #sent: SentPiece[] = [];
  /** Per piece index: how many times this renderer sent it (a re-send after a deletion needs a new key). */
  readonly #sends: number[] = [];
  readonly #notices: string[] = [];
  #lastRenderAt = 0;
  #timer: NodeJS.Timeout | undefined;
  /** A streaming render waits in the queue (so deltas do not pile up renders behind a slow one). */
  #streamQueued = false;
  /** Shown after the text while streaming (the model is busy); cleared by the next text. */
  #status: string | undefined;
  #toldBusy = false;
  #typing: NodeJS.Timeout | undefined;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  /** A piece the process that went away was sending, its message never recorded (ReplyState.unsent). */
  #unsent: UnsentPiece | undefined;
  /** Continues an answer a process that went away began (a continued turn, an owed answer). */
  #continuing = false;
  /** How many of #sent the stored reply state names (a message sent since is named in the owed record). */
  #savedRefs = 0;
  /** Approval prompts of the turn's suspension: sent once the suspension is written (at close). */
  readonly #prompts: { approval: ApprovalRecord; description?: Wording }[] = [];
  /** The text and notices shown above the prompts. */
  #promptsText = '';
  /** The turn was left running (paused): a continuation takes over these messages. */
  #pausing = false;
  #markClosed: () => void = noop;
  /** Settles once close() has delivered everything (what the chat's next renderer waits for). */
  readonly closed: Promise<void> = new Promise((resolve) => (this.#markClosed = resolve));

  constructor(options: RendererOptions) {
    this.#o = options;
    if (options.after) this.#queue = options.after.then(noop, noop);
  }

  get #locale(): Locale {
    return this.#o.locale ?? DEFAULT_LOCALE;
  }

  get #interval(): number {
    return this.#o.adapter.capabilities.editIntervalMs[this.#o.chat.chatType];
  }

  handle = (event: AgentEvent): void => {
    if (this.#closed) return;
    switch (event.type) {
      case 'turn_start':
        if (event.reply) {
          this.#continuing = true;
          const { fromRound, refs, unsent } = newerReplyState(event.reply, this.#o.handoff);
          this.#inherit(fromRound, refs, event.reply.rounds.slice(Math.max(0, fromRound - 1)), unsent);
        }
        this.#startTyping();
        break;
      case 'message_delta':
        if (event.kind !== 'text') break;
        if (event.round !== this.#round && this.#text.trim()) this.#text += '\n\n';
        this.#round = event.round;
        this.#text += event.text;
        this.#status = undefined;
        this.#schedule();
        break;
      case 'answer_complete':
        // turn_end, with the whole answer, follows as soon as it is written: a pending render waits
        // for it (one send, or one edit, fewer; no reply state to record) unless the write is slow.
        this.#postponeRender();
        break;
      case 'model_busy':
        this.#modelBusy();
        break;
      case 'tool_start':
      case 'tool_end': {
        const show = this.#o.adapter.showActivity?.bind(this.#o.adapter);
        if (!show) break;
        const label =
          event.type === 'tool_start'
            ? event.activity
              ? wordingText(this.#locale, event.activity)
              : t(this.#locale, 'activity.running', { tool: event.name })
            : event.name;
        this.#enqueue(() =>
          show(this.#o.chat, {
            phase: event.type === 'tool_start' ? 'start' : 'end',
            callId: event.callId,
            tool: event.name,
            label,
            ...(event.type === 'tool_end' ? { ok: event.ok } : {}),
          }),
        );
        break;
      }
      case 'approval_requested': {
        if (!this.#o.prompts) break;
        this.#cancelTimer();
        // The turn suspends after this (no turn_end here): notices go with the text, above the prompt.
        const notices = this.#notices.splice(0).map((notice) => `_${notice}_`);
        this.#promptsText = [this.#text.trim(), ...notices].filter(Boolean).join('\n\n');
        this.#prompts.push({ approval: event.approval, ...(event.description ? { description: event.description } : {}) });
        break;
      }
      case 'notice':
        this.#notices.push(event.text);
        break;
      case 'turn_end': {
        this.#stopTyping();
        this.#cancelTimer();
        let text = this.#text.trim();
        if (event.status !== 'done' && event.text) text = text ? `${text}\n\n_${event.text}_` : event.text;
        // No text streamed (what was sent, if anything, is inherited or the busy placeholder).
        if (event.status === 'done' && !text) text = event.text || t(this.#locale, 'chat.noAnswer');
        for (const notice of this.#notices) text = `${text}\n\n_${notice}_`;
        // Left `running` (shutdown): the next process continues this answer in these messages.
        this.#pausing = event.status === 'running';
        if (event.status === 'done') this.#deliverOwed(text.trim());
        else this.#enqueue(() => (event.status === 'running' ? this.#render(text.trim(), 'paused') : this.#deliver(text.trim())));
        break;
      }
    }
  };

  /** Left paused (the turn is to be continued): the messages it shows, once `closed` has settled. */
  get pausedState(): ReplyState | undefined {
    return this.#pausing ? { fromRound: this.#fromRound, refs: this.#sent.map((p) => p.ref) } : undefined;
  }

  /** Resolves when everything queued has been sent, including work queued while waiting. */
  async flush(): Promise<void> {
    this.#cancelTimer();
    let queue: Promise<void>;
    do {
      queue = this.#queue;
      await queue;
    } while (queue !== this.#queue);
  }

  /**
   * Stop typing and pending edits (the turn suspended, or the process is stopping). Prompts of a
   * suspension go out now: the suspension (which records them as owed) is written by then.
   */
  async close(): Promise<void> {
    this.#stopTyping();
    this.#sendPrompts();
    try {
      await this.flush();
    } finally {
      this.#closed = true;
      this.#markClosed();
    }
  }

  #enqueue(work: () => Promise<void>): void {
    this.#queue = this.#queue.then(work).catch((error: unknown) => {
      this.#o.log.warn({ err: error, chat: this.#o.chat }, `sending to ${this.#o.adapter.id} failed: ${errorText(error)}`);
    });
  }

  #sendPrompts(): void {
    const prompts = this.#o.prompts;
    const held = this.#prompts.splice(0);
    if (!prompts || held.length === 0) return;
    this.#enqueue(async () => {
      failpoint('approval-suspended');
      await this.#deliver(this.#promptsText);
      for (const { approval, description } of held) {
        const prompt = { ...prompts.render(approval, description, this.#o.chat, this.#locale), idempotencyKey: promptKey(approval.id) };
        const ref = await this.#sendPersistently(prompt, 'an approval prompt');
        if (ref) await prompts.sent(approval, ref);
      }
    });
  }

  #schedule(): void {
    if (this.#timer || this.#streamQueued || !this.#o.adapter.capabilities.canEdit) return;
    // Nothing shown yet: an answer complete within FIRST_RENDER_DELAY_MS is sent once, finished,
    // instead of sent, recorded (the reply state) and edited right after.
    const wait =
      this.#lastRenderAt === 0 && this.#sent.length === 0
        ? FIRST_RENDER_DELAY_MS
        : Math.max(0, this.#lastRenderAt + this.#interval - Date.now());
    this.#arm(wait);
  }

  #arm(waitMs: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#streamQueued = true;
      this.#enqueue(() => this.#stream());
    }, waitMs);
  }

  #postponeRender(): void {
    if (!this.#timer) return;
    clearTimeout(this.#timer);
    this.#arm(COMPLETE_ANSWER_WAIT_MS);
  }

  /** One streaming render of the text so far; a rate limit pushes the next one back. */
  async #stream(): Promise<void> {
    this.#streamQueued = false;
    // Paced from the start of a render, so deltas arriving while it is in flight wait their turn.
    this.#lastRenderAt = Date.now();
    const text = this.#status ? [this.#text.trim(), `_${this.#status}_`].filter(Boolean).join('\n\n') : this.#text;
    try {
      await this.#render(text);
    } catch (error) {
      this.#lastRenderAt = Date.now() + (deliveryFailureOf(error).retryAfterMs ?? 0);
      throw error;
    }
  }

  /** Tell the chat once that the model is busy: a placeholder the answer replaces, or one message. */
  #modelBusy(): void {
    if (this.#toldBusy) return;
    this.#toldBusy = true;
    if (this.#o.adapter.capabilities.canEdit) {
      this.#status = t(this.#locale, 'chat.modelBusy');
      this.#schedule();
    } else {
      this.#enqueue(
        async () =>
          void (await this.#o.adapter.send(this.#o.chat, {
            text: t(this.#locale, 'chat.modelBusy'),
            ...this.#replyTo(0),
            ...noticeKey(this.#o.turnId, 'busy'),
          })),
      );
    }
  }

  /** The final render must land: retried within the budget; if it cannot, the chat is told so. */
  async #deliver(text: string): Promise<void> {
    const { adapter, chat, log } = this.#o;
    const result = await persist(() => this.#render(text, 'final'), {
      budgetMs: this.#o.deliveryBudgetMs ?? DELIVERY_BUDGET_MS,
      onRetry: (error, waitMs, attempt) => {
        log.warn(
          { err: error, chat, attempt, waitMs },
          `delivering an answer to ${adapter.id} failed; retrying in ${waitMs} ms: ${errorText(error)}`,
        );
      },
    });
    if (result.ok) return;
    log.error(
      { err: result.error, chat, attempts: result.attempts },
      `could not deliver an answer to ${adapter.id} (${result.attempts} tries): ${errorText(result.error)}`,
    );
    // Forbidden: the bot may not write there (blocked, removed); nothing else would arrive either.
    if (deliveryFailureOf(result.error).kind !== 'forbidden')
      await this.#sendPersistently(
        { text: t(this.#locale, 'chat.undelivered'), ...this.#replyTo(0), ...noticeKey(this.#o.turnId, 'undelivered') },
        'the delivery error',
        NOTICE_BUDGET_MS,
      );
  }

  /**
   * The answer, owed until delivered (see RendererOptions.owed): a message the stored reply state
   * does not name yet (the turn's end was written first) is named in the owed record before more is
   * sent, and the record is cleared once the answer is delivered.
   */
  #deliverOwed(text: string): void {
    const owed = this.#o.owed;
    this.#enqueue(async () => {
      try {
        if (owed && this.#sent.length > this.#savedRefs) await this.#recordOwed(owed);
        failpoint('answer-finished');
        await this.#deliver(text);
        failpoint('answer-sent');
      } finally {
        await owed?.settle().catch((error: unknown) => this.#warnOwed(error));
      }
    });
  }

  #recordOwed(owed: OwedDelivery, unsent?: UnsentPiece): Promise<void> {
    return owed
      .record({ fromRound: this.#fromRound, refs: this.#sent.map((p) => p.ref), ...(unsent ? { unsent } : {}) })
      .catch((error: unknown) => this.#warnOwed(error));
  }

  /**
   * The intent of sending piece `unsent.index` in a new message: while the turn runs, in its reply
   * state; once it is done (its end written, also while a complete answer waits for that write),
   * in its owed record, which the final answer's sends (a second write per answer where sends are
   * not idempotent: Telegram) record it in too. The owed record is cleared once delivered.
   */
  async #recordIntent(unsent: UnsentPiece, streaming: boolean): Promise<void> {
    if (streaming && (await this.#saveReplyState(unsent))) return;
    if (this.#o.owed) await this.#recordOwed(this.#o.owed, unsent);
  }

  #warnOwed(error: unknown): void {
    this.#o.log.warn({ err: error, chat: this.#o.chat }, `could not record the answer as still owed: ${errorText(error)}`);
  }

  /** Sends a message, retrying like the final answer; undefined (logged) when it cannot. */
  async #sendPersistently(
    message: OutboundMessage,
    what: string,
    budgetMs = this.#o.deliveryBudgetMs ?? DELIVERY_BUDGET_MS,
  ): Promise<SentRef | undefined> {
    const { adapter, chat, log } = this.#o;
    let ref: SentRef | undefined;
    const result = await persist(
      async () => {
        ref = await adapter.send(chat, message);
      },
      {
        budgetMs,
        onRetry: (error, waitMs) =>
          log.warn({ err: error, chat, waitMs }, `sending ${what} to ${adapter.id} failed; retrying in ${waitMs} ms: ${errorText(error)}`),
      },
    );
    if (!result.ok) log.error({ err: result.error, chat }, `could not send ${what} to ${adapter.id}: ${errorText(result.error)}`);
    return ref;
  }

  /** The same for this piece in every process that renders this answer from the same round on. */
  #keyOf(index: number): { idempotencyKey?: string; mayRepeat?: true } {
    const turnId = this.#o.turnId;
    if (!turnId) return {};
    const sends = (this.#sends[index] ?? 0) + 1;
    this.#sends[index] = sends;
    return {
      idempotencyKey: `${turnId}:${this.#fromRound}:${index}${sends > 1 ? `:${sends}` : ''}`,
      // A continued answer: the process that went away may have sent this piece already.
      ...(this.#continuing && sends === 1 ? { mayRepeat: true } : {}),
    };
  }

  #replyTo(index: number): { replyToMessageId?: string } {
    const { chat, adapter } = this.#o;
    const replyTo =
      index === 0 && (chat.chatType === 'group' || adapter.capabilities.repliesInDirect) ? this.#o.replyToMessageId : undefined;
    return replyTo ? { replyToMessageId: replyTo } : {};
  }

  #cancelTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #render(text: string, phase: RenderPhase = 'streaming'): Promise<void> {
    if (!text.trim()) return;
    const { adapter, chat } = this.#o;
    const pieces = splitMessage(text, adapter.capabilities.maxTextLength);
    for (const [index, piece] of pieces.entries()) {
      const sent = this.#sent[index];
      const editable = sent !== undefined && (!sent.inherited || (await this.#editInherited(sent, piece)));
      if (sent && editable) {
        if (sent.text === piece || !adapter.capabilities.canEdit) continue;
        if (await this.#edit(sent, piece)) continue;
      }
      // The piece a process that went away was sending when it died (its message unrecorded).
      const continued = !sent && this.#unsent?.index === index;
      const streaming = phase !== 'final';
      const fresh = index === this.#sent.length;
      // Where a repeated send would make a second message, the send's intent is recorded first, so
      // that a crash before the write naming its message shows the answer again only as a marked
      // continuation, never as a second unmarked copy (see #recordIntent).
      const intent = fresh && !adapter.capabilities.idempotentSends;
      if (intent) await this.#recordIntent({ index, chars: piece.length }, streaming);
      if (streaming) failpoint('stream-intent-recorded');
      const shown = continued ? continuationOf(piece, this.#locale) : piece;
      const sendAt = performance.now();
      const send = () => adapter.send(chat, { text: shown, ...this.#replyTo(index), ...this.#keyOf(index) });
      const owed = this.#o.owed;
      // A final answer waiting out a refusal (a client that retries by itself) was not sent: a
      // crash meanwhile must not make the next process mark it as shown before.
      const ref =
        intent && !streaming && owed
          ? await watchAttempts(
              { attempting: () => this.#recordOwed(owed, { index, chars: piece.length }), refused: () => this.#recordOwed(owed) },
              send,
            ).catch(async (error: unknown) => {
              if (deliveryFailureOf(error).kind === 'rate_limited') await this.#recordOwed(owed);
              throw error;
            })
          : await send();
      if (streaming) failpoint('stream-message-sent');
      this.#sent[index] = { ref, text: piece, ...(continued ? { continued } : {}) };
      // The very next write records the message: while streaming in the reply state; an owed
      // answer's record names each message but the last (the write after the last clears it), in
      // the intent of the next one where there is one.
      if (streaming) {
        await this.#saveReplyState();
        // The window in which a crash leaves a message nobody can edit (idempotent sends aside).
        this.#o.log.debug({ chat, unrecordedMs: performance.now() - sendAt }, 'a new message of the answer recorded');
      } else if (this.#o.owed && index < pieces.length - 1 && !intent) await this.#recordOwed(this.#o.owed);
    }
    if (phase === 'final') await this.#retireInherited(pieces.length);
    this.#lastRenderAt = Date.now();
  }

  /** False when the message is gone (deleted by someone): that part is then sent anew. */
  async #edit(sent: SentPiece, piece: string): Promise<boolean> {
    try {
      await this.#o.adapter.edit(sent.ref, { text: sent.continued ? continuationOf(piece, this.#locale) : piece });
    } catch (error) {
      if (deliveryFailureOf(error).kind !== 'gone') throw error;
      this.#o.log.warn({ err: error, chat: this.#o.chat }, `a message of the answer is gone; sending that part anew: ${errorText(error)}`);
      return false;
    }
    sent.text = piece;
    return true;
  }

  /** Continue an interrupted answer in the messages that show it (only where they can be edited). */
  #inherit(fromRound: number, refs: SentRef[], texts: string[], unsent: UnsentPiece | undefined): void {
    this.#fromRound = fromRound;
    if (unsent?.index === refs.length) this.#unsent = unsent;
    if (refs.length === 0 || !this.#o.adapter.capabilities.canEdit) return;
    for (const ref of refs) this.#sent.push({ ref, text: '', inherited: true });
    this.#savedRefs = refs.length;
    this.#text = texts.filter((t) => t.trim()).join('\n\n');
  }

  /** False when the message cannot be edited (deleted...): it is marked if possible, a new one follows. */
  async #editInherited(sent: SentPiece, piece: string): Promise<boolean> {
    try {
      await this.#o.adapter.edit(sent.ref, { text: piece });
    } catch (error) {
      // Wait and retry (the caller does) rather than leave the old message behind a new copy.
      const { kind } = deliveryFailureOf(error);
      if (kind === 'rate_limited' || kind === 'transient') throw error;
      this.#o.log.warn({ err: error, chat: this.#o.chat }, `could not continue an interrupted answer in place: ${errorText(error)}`);
      await this.#o.adapter.edit(sent.ref, { text: t(this.#locale, 'chat.interruptedMarker') }).catch(() => {});
      return false;
    }
    sent.text = piece;
    sent.inherited = false;
    return true;
  }

  /** Inherited messages beyond the final answer's length would show a stale fragment: mark them. */
  async #retireInherited(keep: number): Promise<void> {
    for (const sent of this.#sent.splice(keep)) {
      if (!sent.inherited) continue;
      await this.#o.adapter.edit(sent.ref, { text: t(this.#locale, 'chat.replacedMarker') }).catch((error: unknown) => {
        this.#o.log.warn({ err: error, chat: this.#o.chat }, `could not mark a replaced message: ${errorText(error)}`);
      });
    }
  }

  /** `unsent`: the intent of a send about to be made (see ReplyState.unsent). False when not stored (the turn no longer runs). */
  async #saveReplyState(unsent?: UnsentPiece): Promise<boolean> {
    const save = this.#o.saveReplyState;
    if (!save) return false;
    try {
      const count = this.#sent.length;
      const state = { fromRound: this.#fromRound, refs: this.#sent.map((p) => p.ref), ...(unsent ? { unsent } : {}) };
      if ((await save(state)) === false) return false;
      if (!unsent) this.#savedRefs = count;
      return true;
    } catch (error) {
      this.#o.log.warn({ err: error, chat: this.#o.chat }, `could not record the answer's messages: ${errorText(error)}`);
      return false;
    }
  }

  #startTyping(): void {
    const { adapter, chat } = this.#o;
    if (this.#typing || !adapter.typing || !adapter.capabilities.hasTyping) return;
    const ping = () => void adapter.typing?.(chat).catch(() => {});
    this.#typing = setTimeout(() => {
      ping();
      this.#typing = setInterval(ping, this.#o.typingIntervalMs ?? 4_500);
    }, this.#o.typingDelayMs ?? 1_000);
  }

  #stopTyping(): void {
    // The delay's timeout and the interval share one id space: clearInterval clears either.
    clearInterval(this.#typing);
    this.#typing = undefined;
  }
}

function noop(): void {}

/**
 * Of two records of the same answer's messages, the one that extends the other (else the stored
 * one: another process continued the answer since).
 */
function newerReplyState(stored: ReplyState, handoff: ReplyState | undefined): ReplyState {
  if (!handoff || handoff.refs.length <= stored.refs.length) return stored;
  if (stored.refs.length === 0) return handoff;
  const extends_ =
    handoff.fromRound === stored.fromRound && stored.refs.every((ref, i) => JSON.stringify(ref) === JSON.stringify(handoff.refs[i]));
  return extends_ ? handoff : stored;
}
