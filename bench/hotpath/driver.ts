// Drives a bot through the fake Bot API: people write in private chats, and each question
// resolves when the bot's final answer (sent or edited in) shows up in a Bot API call.
// The fake model (modelResponder) answers "done-<id>-end" at once, after two tool rounds when the
// question asks for tools.
import { FakeTelegram, type RecordedCall, type TgChat, type TgUser } from '../../test/fakes/telegram/index.ts';
import type { RecordedRequest, Step } from '../../test/fakes/model-server.ts';

const ANSWER = /done-(q\d+)-end/;
/** Far beyond any answer time under load; only a lost turn waits this long. */
const ANSWER_TIMEOUT_MS = 30_000;
const QUESTION = /(ask|tools) (q\d+)/;

/** The fake model's script: "ask qN" → the answer; "tools qN" → two tool rounds, then the answer. */
export function modelResponder(request: RecordedRequest): Step {
  const messages = request.body.messages;
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const question = QUESTION.exec(messages[lastUser]?.content ?? '');
  if (!question) return { text: 'hello', chunkSize: 256 };
  const rounds = messages.slice(lastUser).filter((m) => m.role === 'tool').length;
  if (question[1] === 'tools' && rounds < 2) {
    return { toolCalls: [{ name: 'search_knowledge', arguments: { query: `step ${rounds + 1}` } }], chunkSize: 256 };
  }
  return { text: `done-${question[2]}-end`, chunkSize: 256 };
}

export class TelegramDriver {
  readonly telegram: FakeTelegram;
  readonly #waiters = new Map<string, (at: number) => void>();
  readonly #people: { user: TgUser; chat: TgChat }[] = [];
  #next = 0;

  private constructor(telegram: FakeTelegram) {
    this.telegram = telegram;
    // Notified of every call instead of keeping them all (a run makes tens of thousands).
    telegram.calls.push = (...calls: RecordedCall[]) => {
      for (const call of calls) this.#onCall(call);
      return 0;
    };
  }

  static async start(): Promise<TelegramDriver> {
    return new TelegramDriver(await FakeTelegram.start());
  }

  /** Person `index`'s private chat (created on first use). */
  #person(index: number) {
    while (this.#people.length <= index) {
      const user = this.telegram.user(`User${this.#people.length}`);
      this.#people.push({ user, chat: this.telegram.privateChat(user) });
    }
    return this.#people[index]!;
  }

  /**
   * Person `index` asks; resolves with the milliseconds until the final answer arrived. Rejects
   * when no answer comes within ANSWER_TIMEOUT_MS (a bot that lost a turn fails the run, not hangs it).
   */
  ask(index: number, kind: 'ask' | 'tools' = 'ask'): Promise<number> {
    const { user, chat } = this.#person(index);
    const id = `q${++this.#next}`;
    const started = performance.now();
    const answered = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(id);
        reject(new Error(`no answer to "${kind} ${id}" (person ${index}) within ${ANSWER_TIMEOUT_MS / 1000} s`));
      }, ANSWER_TIMEOUT_MS);
      this.#waiters.set(id, (at) => {
        clearTimeout(timer);
        resolve(at - started);
      });
    });
    this.telegram.say(user, chat, `${kind} ${id}`);
    return answered;
  }

  #onCall(call: RecordedCall): void {
    if (call.method !== 'sendMessage' && call.method !== 'editMessageText') return;
    const id = ANSWER.exec(String(call.params.text ?? ''))?.[1];
    const waiter = id ? this.#waiters.get(id) : undefined;
    if (!waiter) return;
    this.#waiters.delete(id!);
    waiter(performance.now());
  }

  close(): Promise<void> {
    return this.telegram.close();
  }
}
