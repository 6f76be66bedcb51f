// The reply handle of one Discord interaction (a button click or a slash command), as the core's
// InteractionReply. Discord fails an interaction not answered within 3 s, so:
// - ack(text) answers it: with text, an ephemeral reply only the clicker sees; without, a silent
//   deferUpdate (button) or deferReply (command, whose answer comes later through respond()).
// - whisper(text) after the ack is an ephemeral follow-up (the token lives 15 minutes).
// - Should the core not have acked by the deadline, the interaction is deferred here, and a later
//   ack's text comes as an ephemeral follow-up. Nothing here throws: failures are logged.
// Calls are serialised, so a deferral and the core's ack never race into a double answer.
import { MessageFlags, type ButtonInteraction, type ChatInputCommandInteraction } from 'discord.js';
import type { CoreLogger, InteractionReply } from '../../src/core/types.ts';
import { safeErrorMessage } from './errors.ts';
import { MAX_CONTENT } from './render.ts';

interface InteractionAnswerOptions {
  log: CoreLogger;
  token: string;
  /** After this long without an ack the interaction is deferred (Discord allows 3 s). */
  deadlineMs: number;
  /** A command's deferral and its answer are ephemeral (only the caller sees them). */
  ephemeral?: boolean;
}

type State = 'open' | 'deferred' | 'answered';

const NO_MENTIONS = { parse: [] } as const;

function clip(text: string): string {
  return text.length <= MAX_CONTENT ? text : `${text.slice(0, MAX_CONTENT - 1)}…`;
}

export class InteractionAnswer implements InteractionReply {
  readonly #interaction: ButtonInteraction | ChatInputCommandInteraction;
  readonly #o: InteractionAnswerOptions;
  readonly #timer: NodeJS.Timeout;
  #state: State = 'open';
  #coreAcked = false;
  #queue: Promise<void> = Promise.resolve();

  constructor(interaction: ButtonInteraction | ChatInputCommandInteraction, options: InteractionAnswerOptions) {
    this.#interaction = interaction;
    this.#o = options;
    this.#timer = setTimeout(() => void this.#serial(() => this.#defer(true)), options.deadlineMs);
    this.#timer.unref();
  }

  /** Whether a command still has no visible answer (open, or deferred and waiting). */
  get awaitingAnswer(): boolean {
    return this.#state !== 'answered';
  }

  ack(text?: string): Promise<void> {
    if (this.#coreAcked) return this.#queue;
    this.#coreAcked = true;
    return this.#serial(async () => {
      if (this.#state === 'open') await (text ? this.#replyEphemeral(text) : this.#defer(false));
      else if (text) await this.#followUp(text);
    });
  }

  whisper(text: string): Promise<void> {
    if (!this.#coreAcked) return this.ack(text);
    return this.#serial(() => (this.#state === 'open' ? this.#replyEphemeral(text) : this.#followUp(text)));
  }

  /** A command's answer (what the core sent to the chat for it): the interaction's own reply. */
  respond(content: string): Promise<string | undefined> {
    let id: string | undefined;
    return this.#serial(async () => {
      if (this.#state === 'answered') {
        id = (await this.#interaction.followUp({ content: clip(content), allowedMentions: NO_MENTIONS })).id;
        return;
      }
      // Deferring first makes the reply a message with an id (for later edits) in one code path.
      await this.#defer(false);
      id = (await this.#command().editReply({ content: clip(content), allowedMentions: NO_MENTIONS })).id;
      this.#state = 'answered';
    }).then(() => id);
  }

  /**
   * After the core is done: an interaction it left unanswered is answered silently (a click
   * deferred; a command's "thinking…" line, if any, deleted), so Discord never reports a failure.
   */
  finish(): Promise<void> {
    clearTimeout(this.#timer);
    return this.#serial(async () => {
      if (this.#state === 'answered') return;
      await this.#defer(false);
      if (this.#interaction.isChatInputCommand()) await this.#command().deleteReply();
      this.#state = 'answered';
    });
  }

  #command(): ChatInputCommandInteraction {
    if (!this.#interaction.isChatInputCommand()) throw new Error('not a slash command');
    return this.#interaction;
  }

  async #defer(byDeadline: boolean): Promise<void> {
    if (this.#state !== 'open') return;
    if (byDeadline)
      this.#o.log.warn(
        { interaction: this.#interaction.id },
        'a Discord interaction was deferred before the core acknowledged it (slow database?)',
      );
    if (this.#interaction.isButton()) await this.#interaction.deferUpdate();
    else await this.#command().deferReply(this.#o.ephemeral ? { flags: MessageFlags.Ephemeral } : {});
    this.#state = 'deferred';
    // A button's deferUpdate shows nothing of its own; there is nothing left to answer.
    if (this.#interaction.isButton()) this.#state = 'answered';
  }

  async #replyEphemeral(text: string): Promise<void> {
    await this.#interaction.reply({ content: clip(text), flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
    this.#state = 'answered';
  }

  async #followUp(text: string): Promise<void> {
    await this.#interaction.followUp({ content: clip(text), flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
  }

  #serial(step: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(step).catch((error: unknown) => {
      this.#o.log.warn(
        { interaction: this.#interaction.id },
        `could not answer a Discord interaction: ${safeErrorMessage(error, this.#o.token)}`,
      );
    });
    this.#queue = run;
    return run;
  }
}
