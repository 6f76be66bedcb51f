// The soak's people: each chat (private, or a group where the bot is mentioned) asks one question
// after another, waiting for its answer (or giving up on it after a while); a scripted clicker
// approves every approval prompt. At the end, the chats' messages as they stand are tallied.
import { setTimeout as sleep } from 'node:timers/promises';
import type { SoakChat, SoakPlatform } from './platform.ts';
import type { Kind } from './script.ts';

const CONTINUED = '… (continued after a restart)';
/** A question left unanswered this long is given up on (its chat asks the next). */
const WAIT_MS = 60_000;
const LOOK_EVERY_MS = 100;

interface Question {
  id: string;
  kind: Kind;
  chat: SoakChat;
  sentAt: number;
  answeredAt?: number;
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
  /** The questions answered twice, as "kind qN (chat)". */
  doubledQuestions: string[];
  /** What the chats with a lost question were told instead (their messages that answer nothing). */
  noticesWhereLost: string[];
}

export class Talk {
  readonly #platform: SoakPlatform;
  readonly #chats: SoakChat[] = [];
  readonly #questions = new Map<string, Question>();
  #next = 0;
  /** The chats go on asking (until stop()). */
  #asking = true;
  /** The clicker goes on approving (until every chat has its last answer, or gave up on it). */
  #clicking = true;

  constructor(platform: SoakPlatform, chats: number) {
    this.#platform = platform;
    for (let i = 0; i < chats; i++) this.#chats.push(platform.chat(i, i % 3 === 2));
  }

  /** Runs every chat's conversation and the clicker until stop() (then waits for the answers due). */
  async run(): Promise<void> {
    const clicker = this.#click();
    await Promise.all(this.#chats.map((chat, i) => this.#converse(chat, i)));
    this.#clicking = false;
    await clicker;
  }

  stop(): void {
    this.#asking = false;
  }

  async #converse(chat: SoakChat, index: number): Promise<void> {
    const kinds: Kind[] = ['ask', 'long', 'approve', 'ask', 'long'];
    for (let turn = 0; this.#asking; turn++) {
      const kind = kinds[(index + turn) % kinds.length]!;
      const question: Question = { id: `q${++this.#next}`, kind, chat, sentAt: Date.now() };
      this.#questions.set(question.id, question);
      this.#platform.say(chat, `${kind} ${question.id}`);
      const end = `done-${question.id}-end`;
      const deadline = Date.now() + WAIT_MS;
      while (Date.now() < deadline) {
        if (this.#platform.texts(chat).some((t) => t.includes(end))) {
          question.answeredAt = Date.now();
          break;
        }
        await sleep(LOOK_EVERY_MS);
      }
      await sleep(Math.random() * 400);
    }
  }

  async #click(): Promise<void> {
    while (this.#clicking) {
      this.#platform.approve();
      await sleep(150);
    }
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
      doubledQuestions: [],
      noticesWhereLost: [],
    };
    const prompts = this.#platform.promptTexts();
    const times: number[] = [];
    for (const chat of this.#chats) {
      const unansweredHere: string[] = [];
      const texts = this.#platform.texts(chat);
      const known = (text: string) => /q\d+/.test(text) || text.includes('Approved by') || text.includes('Approval needed');
      const noticeTexts = texts.filter((t) => !known(t));
      const notices = noticeTexts.length;
      tally.errorNotices += notices;
      let unanswered = 0;
      for (const question of this.#questions.values()) {
        if (question.chat !== chat) continue;
        const end = `done-${question.id}-end`;
        const start = `start-${question.id} `;
        const marked = (t: string) => t.includes(CONTINUED);
        const continued = texts.filter((t) => marked(t) && t.includes(question.id));
        const full = texts.filter((t) => !marked(t) && t.includes(end) && (question.kind !== 'long' || t.includes(start)));
        const truncated = texts.filter((t) => !marked(t) && t.includes(start) && !t.includes(end));
        tally.markedContinuations += continued.length;
        if (continued.length === 0) tally.truncatedUnmarked += truncated.length;
        if (full.length > 1) {
          tally.answeredTwice++;
          tally.doubledQuestions.push(`${question.kind} ${question.id} (${chat.label})`);
        } else if (full.length + continued.length > 0) tally.answeredOnce++;
        else {
          unanswered++;
          unansweredHere.push(`${question.kind} ${question.id} (${chat.label})`);
        }
        if (question.kind === 'approve' && !prompts.some((t) => t.includes(`"${question.id}"`))) {
          // No prompt, and no answer either (an answer needs the approval).
          if (full.length + continued.length === 0) tally.approvalsNeverShown++;
        }
        if (question.answeredAt !== undefined) times.push(question.answeredAt - question.sentAt);
      }
      // An unanswered question the chat was told about (an error notice) is not lost.
      tally.lost += Math.max(0, unanswered - notices);
      if (unanswered > notices) {
        tally.lostQuestions.push(...unansweredHere);
        tally.noticesWhereLost.push(...noticeTexts.map((t) => `${chat.label}: ${t.slice(0, 160)}`));
      }
    }
    times.sort((a, b) => a - b);
    tally.worstMs = times.at(-1) ?? 0;
    tally.p50Ms = times[Math.floor(times.length / 2)] ?? 0;
    return tally;
  }
}
