// Turns one turn's events into chat messages: the answer appears as one message edited in place
// as text streams in (paced per the adapter's edit interval, unchanged text never re-sent), split
// over several messages past the platform's length limit; approval prompts follow the text.
import { errorText } from '../core/errors.ts';
import { splitMessage } from '../core/text-split.ts';
import type { ChannelAdapter, ChatRef, OutboundMessage, SentRef } from '../core/types.ts';
import type { AgentEvent } from '../agent/events.ts';
import type { Logger } from '../log.ts';
import type { ApprovalRecord, ReplyState } from '../store/types.ts';

export interface ApprovalPromptSink {
  /** Builds the prompt for a gated call. */
  render(approval: ApprovalRecord, description: string, chat: ChatRef): OutboundMessage;
  /** Called with the sent prompt, so it can be edited after the decision. */
  sent(approval: ApprovalRecord, ref: SentRef): Promise<void>;
}

export interface RendererOptions {
  adapter: ChannelAdapter;
  chat: ChatRef;
  replyToMessageId?: string;
  log: Logger;
  prompts?: ApprovalPromptSink;
  typingIntervalMs?: number;
  /**
   * Records the answer's messages each time a new one is sent while it streams (not per edit), so
   * that after a crash the continued turn edits them in place (see `turn_start.reply`).
   */
  saveReplyState?: (state: ReplyState) => Promise<void>;
}

interface SentPiece {
  ref: SentRef;
  text: string;
  /** Sent by a process that went away mid-answer; its text is unknown here. */
  inherited?: boolean;
}

type RenderPhase = 'streaming' | 'final' | 'paused';

const REPLACED = '_(interrupted answer: replaced by the message above)_';
const INTERRUPTED = '_(interrupted — the full answer follows)_';

export class ReplyRenderer {
  readonly #o: RendererOptions;
  #text = '';
  #round = 0;
  #fromRound = 1;
  readonly #sent: SentPiece[] = [];
  readonly #notices: string[] = [];
  #lastRenderAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #typing: NodeJS.Timeout | undefined;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: RendererOptions) {
    this.#o = options;
  }

  get #interval(): number {
    return this.#o.adapter.capabilities.editIntervalMs[this.#o.chat.chatType];
  }

  handle = (event: AgentEvent): void => {
    if (this.#closed) return;
    switch (event.type) {
      case 'turn_start':
        if (event.reply) this.#inherit(event.reply.fromRound, event.reply.refs, event.reply.texts);
        this.#startTyping();
        break;
      case 'message_delta':
        if (event.kind !== 'text') break;
        if (event.round !== this.#round && this.#text.trim()) this.#text += '\n\n';
        this.#round = event.round;
        this.#text += event.text;
        this.#schedule();
        break;
      case 'tool_start':
      case 'tool_end': {
        const show = this.#o.adapter.showActivity?.bind(this.#o.adapter);
        if (!show) break;
        const label = event.type === 'tool_start' ? (event.activity ?? `running ${event.name}`) : event.name;
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
        const prompts = this.#o.prompts;
        if (!prompts) break;
        this.#cancelTimer();
        this.#enqueue(async () => {
          await this.#render(this.#text, 'final');
          const ref = await this.#o.adapter.send(this.#o.chat, prompts.render(event.approval, event.description, this.#o.chat));
          await prompts.sent(event.approval, ref);
        });
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
        if (event.status === 'done' && !text && this.#sent.every((p) => p.inherited)) text = event.text || '_(no answer)_';
        for (const notice of this.#notices) text = `${text}\n\n_${notice}_`;
        // Left `running` (shutdown): the next process continues this answer in these messages.
        this.#enqueue(() => this.#render(text.trim(), event.status === 'running' ? 'paused' : 'final'));
        break;
      }
    }
  };

  /** Resolves when everything queued so far has been sent. */
  async flush(): Promise<void> {
    this.#cancelTimer();
    await this.#queue;
  }

  /** Stop typing and pending edits (the turn suspended, or the process is stopping). */
  async close(): Promise<void> {
    this.#stopTyping();
    await this.flush();
    this.#closed = true;
  }

  #enqueue(work: () => Promise<void>): void {
    this.#queue = this.#queue.then(work).catch((error: unknown) => {
      this.#o.log.warn({ err: error, chat: this.#o.chat }, `sending to ${this.#o.adapter.name} failed: ${errorText(error)}`);
    });
  }

  #schedule(): void {
    if (this.#timer || !this.#o.adapter.capabilities.canEdit) return;
    const wait = Math.max(0, this.#lastRenderAt + this.#interval - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#enqueue(() => this.#render(this.#text));
    }, wait);
  }

  #cancelTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #render(text: string, phase: RenderPhase = 'streaming'): Promise<void> {
    if (!text.trim()) return;
    const { adapter, chat } = this.#o;
    const pieces = splitMessage(text, adapter.capabilities.maxTextLength);
    let added = false;
    for (const [index, piece] of pieces.entries()) {
      const sent = this.#sent[index];
      const editable = sent !== undefined && (!sent.inherited || (await this.#editInherited(sent, piece)));
      if (sent && editable) {
        if (sent.text === piece || !adapter.capabilities.canEdit) continue;
        await adapter.edit(sent.ref, { text: piece });
        sent.text = piece;
      } else {
        const replyTo = index === 0 && chat.chatType === 'group' ? this.#o.replyToMessageId : undefined;
        const ref = await adapter.send(chat, { text: piece, ...(replyTo ? { replyToMessageId: replyTo } : {}) });
        this.#sent[index] = { ref, text: piece };
        added = true;
      }
    }
    if (phase === 'final') await this.#retireInherited(pieces.length);
    if (added && phase !== 'final') await this.#saveReplyState();
    this.#lastRenderAt = Date.now();
  }

  /** Continue an interrupted answer in the messages that show it (only where they can be edited). */
  #inherit(fromRound: number, refs: SentRef[], texts: string[]): void {
    this.#fromRound = fromRound;
    if (refs.length === 0 || !this.#o.adapter.capabilities.canEdit) return;
    for (const ref of refs) this.#sent.push({ ref, text: '', inherited: true });
    this.#text = texts.filter((t) => t.trim()).join('\n\n');
  }

  /** False when the message cannot be edited (deleted...): it is marked if possible, a new one follows. */
  async #editInherited(sent: SentPiece, piece: string): Promise<boolean> {
    try {
      await this.#o.adapter.edit(sent.ref, { text: piece });
    } catch (error) {
      this.#o.log.warn({ err: error, chat: this.#o.chat }, `could not continue an interrupted answer in place: ${errorText(error)}`);
      await this.#o.adapter.edit(sent.ref, { text: INTERRUPTED }).catch(() => {});
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
      await this.#o.adapter.edit(sent.ref, { text: REPLACED }).catch((error: unknown) => {
        this.#o.log.warn({ err: error, chat: this.#o.chat }, `could not mark a replaced message: ${errorText(error)}`);
      });
    }
  }

  async #saveReplyState(): Promise<void> {
    const save = this.#o.saveReplyState;
    if (!save) return;
    try {
      await save({ fromRound: this.#fromRound, refs: this.#sent.map((p) => p.ref) });
    } catch (error) {
      this.#o.log.warn({ err: error, chat: this.#o.chat }, `could not record the answer's messages: ${errorText(error)}`);
    }
  }

  #startTyping(): void {
    if (this.#typing) return;
    const ping = () => void this.#o.adapter.typing(this.#o.chat).catch(() => {});
    ping();
    this.#typing = setInterval(ping, this.#o.typingIntervalMs ?? 4_500);
  }

  #stopTyping(): void {
    clearInterval(this.#typing);
    this.#typing = undefined;
  }
}
