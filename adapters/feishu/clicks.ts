// Card clicks (`card.action.trigger`) → Action, with the reply handle the core answers through.
// The callback's answer (the webhook's HTTP response, or the long connection's ack frame) is the
// acknowledgement: `ack(text)` puts `text` in it as a toast only the clicker sees. The core acks
// first (a quick decision), so the answer leaves within Feishu's 3 s; should it not have acked by
// the deadline, the click is answered without a toast and a later ack's text comes as a whisper.
// A whisper (and any text after the answer) is a message in the chat naming the person: Feishu
// has no message only one person sees, and no toast after the answer.
import { answerOnce } from '../../src/core/ack.ts';
import type { ChatType, CoreLogger, InboundSink, InteractionReply } from '../../src/core/types.ts';
import { CardActionEventSchema } from './payloads.ts';
import { issuesOf, type Rejections } from './rejections.ts';
import { DEFAULT_LOCALE, t } from '../../src/core/i18n/index.ts';

export interface Clicker {
  chatId: string;
  chatType: ChatType;
  /** The card that was clicked. */
  messageId: string;
  openId: string;
  name: string;
}

interface CardClickOptions {
  channel: string;
  log: CoreLogger;
  rejections: Rejections;
  sink(): InboundSink | undefined;
  chatType(chatId: string): ChatType;
  whisper(to: Clicker, text: string): Promise<void>;
  /** Keeps the core's work (which goes on after the answer) until the adapter stops. */
  track(work: Promise<unknown>): void;
  /** How long the answer waits for the core's ack (Feishu allows 3 s). */
  deadlineMs: number;
}

const TOAST_MAX_CHARS = 200;
const REMEMBERED_ANSWERS = 1_000;

function toastOf(text: string | undefined): object {
  if (!text) return {};
  return { toast: { type: 'info', content: text.length > TOAST_MAX_CHARS ? `${text.slice(0, TOAST_MAX_CHARS - 1)}…` : text } };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class CardClicks {
  readonly #o: CardClickOptions;
  /** Answers by event id: Feishu pushes a callback again when it thinks the answer was lost; it gets the same answer. */
  readonly #answers = new Map<string, Promise<object>>();

  constructor(options: CardClickOptions) {
    this.#o = options;
  }

  handle(data: unknown): Promise<object> {
    const eventId = typeof (data as { event_id?: unknown }).event_id === 'string' ? (data as { event_id: string }).event_id : undefined;
    const known = eventId ? this.#answers.get(eventId) : undefined;
    if (known) return known;
    const answer = this.#handle(data);
    if (eventId) {
      this.#answers.set(eventId, answer);
      if (this.#answers.size > REMEMBERED_ANSWERS) this.#answers.delete(this.#answers.keys().next().value!);
    }
    return answer;
  }

  async #handle(data: unknown): Promise<object> {
    const sink = this.#o.sink();
    const parsed = CardActionEventSchema.safeParse(data);
    if (!parsed.success) {
      this.#o.rejections.report('card callback', data, issuesOf(parsed.error));
      return toastOf(t(DEFAULT_LOCALE, 'chat.inactiveButton'));
    }
    if (!sink) {
      this.#o.log.warn({}, 'a Feishu card click arrived while the channel is stopped');
      return toastOf(t(DEFAULT_LOCALE, 'chat.inactiveButton'));
    }
    const click = parsed.data;
    const clicker: Clicker = {
      chatId: click.chatId,
      chatType: this.#o.chatType(click.chatId),
      messageId: click.messageId,
      openId: click.openId,
      name: click.name ?? click.openId,
    };
    const { reply, answered, giveUp } = this.#reply(clicker);
    this.#o.track(
      sink
        .onAction({
          channel: this.#o.channel,
          chatId: clicker.chatId,
          chatType: clicker.chatType,
          messageId: clicker.messageId,
          userId: clicker.openId,
          displayName: clicker.name,
          payload: click.payload,
          reply,
        })
        .catch(async (error: unknown) => {
          this.#o.log.error({}, `handling a card click failed: ${error instanceof Error ? error.message : String(error)}`);
          // Feishu's click carries no language (nor does its message event): the core's texts follow the chat's.
          await reply.ack(t(DEFAULT_LOCALE, 'general.tryAgain'));
        })
        .finally(() => reply.ack()),
    );
    const toast = await Promise.race([answered, sleep(this.#o.deadlineMs).then(giveUp)]);
    return toastOf(toast);
  }

  #reply(clicker: Clicker): { reply: InteractionReply; answered: Promise<string | undefined>; giveUp: () => undefined } {
    let answer!: (text: string | undefined) => void;
    const answered = new Promise<string | undefined>((resolve) => (answer = resolve));
    let acked = false;
    let late = false;
    const whisper = async (text: string) => {
      try {
        await this.#o.whisper(clicker, text);
      } catch (error) {
        this.#o.log.warn(
          {},
          `could not tell the clicker "${text.slice(0, 60)}": ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    };
    const { ack } = answerOnce(async (text) => {
      acked = true;
      if (!late) return answer(text);
      if (text) await whisper(text);
    });
    const giveUp = () => {
      if (acked) return undefined;
      late = true;
      this.#o.log.warn({}, 'a card click was answered before the core acknowledged it (slow database?)');
      return undefined;
    };
    return { reply: { ack, whisper }, answered, giveUp };
  }
}
