// The soak's people: each chat (private, or a group where the bot is mentioned) asks one question
// after another, waiting for its answer (or giving up on it after a while); a scripted clicker
// approves every approval prompt. At the end, the chats' messages as they stand are tallied.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeTelegram, RecordedCall, TgChat, TgUser } from '../../test/fakes/telegram/index.ts';
import type { Kind } from './script.ts';

const ANSWER = /done-(q\d+)-end/;
const CONTINUED = '… (continued after a restart)';
/** A question left unanswered this long is given up on (its chat asks the next). */
const WAIT_MS = 60_000;

interface Question {
  id: string;
  kind: Kind;
  chat: TgChat;
  sentAt: number;
  answeredAt?: number;
}

interface Talker {
  user: TgUser;
  chat: TgChat;
  prefix: string;
}

export interface Tally {
  sent: number;
  answeredOnce: number;
  answeredTwice: number;
  truncatedUnmarked: number;
  markedContinuations: number;
  lost: number;
  errorNotices: number;
  approvalsRunTwice: number;
  approvalsNeverShown: number;
  worstMs: number;
  p50Ms: number;
  /** The questions lost, as "kind qN (chat)", for a look at the logs. */
  lostQuestions: string[];
}

export class Talk {
  readonly #tg: FakeTelegram;
  readonly #talkers: Talker[] = [];
  readonly #questions = new Map<string, Question>();
  readonly #clicked = new Set<string>();
  #next = 0;
  /** The chats go on asking (until stop()). */
  #asking = true;
  /** The clicker goes on approving (until every chat has its last answer, or gave up on it). */
  #clicking = true;

  constructor(tg: FakeTelegram, chats: number) {
    this.#tg = tg;
    const record = tg.calls.push.bind(tg.calls);
    tg.calls.push = (...calls: RecordedCall[]) => {
      for (const call of calls) this.#onCall(call);
      return record(...calls);
    };
    for (let i = 0; i < chats; i++) {
      const user = tg.user(`Person${i}`);
      if (i % 3 === 2) {
        const chat = tg.group(`Team ${i}`);
        this.#talkers.push({ user, chat, prefix: `@${tg.bot.username} ` });
      } else this.#talkers.push({ user, chat: tg.privateChat(user), prefix: '' });
    }
  }

  /** Runs every chat's conversation and the clicker until stop() (then waits for the answers due). */
  async run(): Promise<void> {
    const clicker = this.#click();
    await Promise.all(this.#talkers.map((talker, i) => this.#converse(talker, i)));
    this.#clicking = false;
    await clicker;
  }

  stop(): void {
    this.#asking = false;
  }

  async #converse(talker: Talker, index: number): Promise<void> {
    const kinds: Kind[] = ['ask', 'long', 'approve', 'ask', 'long'];
    for (let turn = 0; this.#asking; turn++) {
      const kind = kinds[(index + turn) % kinds.length]!;
      const question: Question = { id: `q${++this.#next}`, kind, chat: talker.chat, sentAt: Date.now() };
      this.#questions.set(question.id, question);
      this.#tg.say(talker.user, talker.chat, `${talker.prefix}${kind} ${question.id}`);
      const deadline = Date.now() + WAIT_MS;
      while (question.answeredAt === undefined && Date.now() < deadline) await sleep(50);
      await sleep(Math.random() * 400);
    }
  }

  /** Approves every prompt the bot shows (as its requester), once. */
  async #click(): Promise<void> {
    while (this.#clicking) {
      for (const talker of this.#talkers) {
        for (const { message } of this.#tg.botMessages(talker.chat)) {
          const key = `${talker.chat.id}:${message.message_id}`;
          if (!message.reply_markup || this.#clicked.has(key) || !message.text?.includes('Approval needed')) continue;
          this.#clicked.add(key);
          this.#tg.click(talker.user, talker.chat, message.message_id, 'Approve');
        }
      }
      await sleep(150);
    }
  }

  #onCall(call: RecordedCall): void {
    if (!call.ok || (call.method !== 'sendMessage' && call.method !== 'editMessageText')) return;
    const id = ANSWER.exec(String(call.params.text ?? ''))?.[1];
    const question = id ? this.#questions.get(id) : undefined;
    if (question && question.answeredAt === undefined) question.answeredAt = call.at;
  }

  tally(posts: Map<string, number>): Tally {
    const tally: Tally = {
      sent: this.#questions.size,
      answeredOnce: 0,
      answeredTwice: 0,
      truncatedUnmarked: 0,
      markedContinuations: 0,
      lost: 0,
      errorNotices: 0,
      approvalsRunTwice: [...posts.values()].filter((n) => n > 1).length,
      approvalsNeverShown: 0,
      worstMs: 0,
      p50Ms: 0,
      lostQuestions: [],
    };
    const prompts = this.#tg.callsTo('sendMessage').filter((c) => c.ok && String(c.params.text ?? '').includes('Approval needed'));
    const times: number[] = [];
    for (const talker of this.#talkers) {
      const unansweredHere: string[] = [];
      const texts = this.#tg.botMessages(talker.chat).map((m) => m.message.text ?? '');
      const known = (text: string) => /q\d+/.test(text) || text.includes('Approved by') || text.includes('Approval needed');
      const notices = texts.filter((t) => !known(t)).length;
      tally.errorNotices += notices;
      let unanswered = 0;
      for (const question of this.#questions.values()) {
        if (question.chat !== talker.chat) continue;
        const end = `done-${question.id}-end`;
        const start = `start-${question.id} `;
        const continued = texts.filter((t) => t.startsWith(CONTINUED) && t.includes(question.id));
        const full = texts.filter((t) => !t.startsWith(CONTINUED) && t.includes(end) && (question.kind !== 'long' || t.includes(start)));
        const truncated = texts.filter((t) => !t.startsWith(CONTINUED) && t.includes(start) && !t.includes(end));
        tally.markedContinuations += continued.length;
        if (continued.length === 0) tally.truncatedUnmarked += truncated.length;
        if (full.length > 1) tally.answeredTwice++;
        else if (full.length + continued.length > 0) tally.answeredOnce++;
        else {
          unanswered++;
          unansweredHere.push(`${question.kind} ${question.id} (chat ${talker.chat.id})`);
        }
        if (question.kind === 'approve' && !prompts.some((c) => String(c.params.text).includes(`"${question.id}"`))) {
          // No prompt, and no answer either (an answer needs the approval).
          if (full.length + continued.length === 0) tally.approvalsNeverShown++;
        }
        if (question.answeredAt !== undefined) times.push(question.answeredAt - question.sentAt);
      }
      // An unanswered question the chat was told about (an error notice) is not lost.
      tally.lost += Math.max(0, unanswered - notices);
      if (unanswered > notices) tally.lostQuestions.push(...unansweredHere);
    }
    times.sort((a, b) => a - b);
    tally.worstMs = times.at(-1) ?? 0;
    tally.p50Ms = times[Math.floor(times.length / 2)] ?? 0;
    return tally;
  }
}
