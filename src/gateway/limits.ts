// Limits that keep one person or one chat from spending the owner's budget: messages per person per
// minute, messages waiting per conversation, tokens per person and per chat per day, and the
// length of one message. Counting is in the database (RateCount, the turns' usage), so a limit
// holds across processes and restarts. Each limit that holds a message back says so once (per
// minute, or per day for budgets), not once per message. Admins are exempt.
import type { LimitSettings } from '../config/config.ts';
import type { ChatRef, Inbound } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import { localeOrDefault } from '../core/i18n/index.ts';
import { notices } from './limit-notices.ts';
import type { Output } from './output.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Windows older than this are deleted by the sweep, at most once in PRUNE_EVERY_MS. */
const KEPT_MS = 2 * DAY_MS;
const PRUNE_EVERY_MS = 10 * MINUTE_MS;

export interface LimitsOptions {
  store: Store;
  settings: LimitSettings;
  /** "channel:userId" entries, who no limit applies to. */
  admins: readonly string[];
  output: Output;
  log: Logger;
  now?: () => Date;
}

const floorTo = (at: Date, ms: number) => new Date(Math.floor(at.getTime() / ms) * ms);

export class Limits {
  readonly #o: LimitsOptions;
  readonly #admins: ReadonlySet<string>;
  readonly #now: () => Date;
  #prunedAt = 0;

  constructor(options: LimitsOptions) {
    this.#o = options;
    this.#admins = new Set(options.admins);
    this.#now = options.now ?? (() => new Date());
  }

  #exempt(inbound: Inbound): boolean {
    return this.#admins.has(`${inbound.channel}:${inbound.sender.id}`);
  }

  /**
   * The message cut to the length limit, with a note for the model; the sender is told. Admins'
   * messages are cut too: the limit protects the context window as much as the budget.
   */
  async cut(inbound: Inbound, chat: ChatRef): Promise<Inbound> {
    const max = this.#o.settings.maxMessageChars;
    const length = inbound.text.length;
    if (length <= max) return inbound;
    // Never between the two halves of a surrogate pair.
    const kept = inbound.text.slice(0, max).replace(/[\uD800-\uDBFF]$/, '');
    this.#o.log.info({ channel: inbound.channel, chatId: inbound.chatId, length, max }, 'cut a message over the length limit');
    await this.#o.output.reply(chat, notices.cut(localeOrDefault(inbound.locale), length, max), inbound);
    return { ...inbound, text: `${kept}${notices.cutForModel(length, max)}` };
  }

  /** True when the sender may send this message now; otherwise told once per minute, and false. */
  async admitMessage(inbound: Inbound, chat: ChatRef): Promise<boolean> {
    const limit = this.#o.settings.perPersonPerMinute;
    if (limit <= 0 || this.#exempt(inbound)) return true;
    const now = this.#now();
    const count = await this.#o.store.rateCounts.add(`message:${inbound.channel}:${inbound.sender.id}`, floorTo(now, MINUTE_MS));
    if (count <= limit) return true;
    if (count === limit + 1) {
      this.#o.log.info({ channel: inbound.channel, sender: inbound.sender.id, limit }, 'a person went over the message rate; told once');
      await this.#o.output.reply(chat, notices.slowDown(localeOrDefault(inbound.locale), limit), inbound);
    }
    return false;
  }

  /** True when the conversation has room for another waiting message; otherwise told once per minute, and false. */
  async admitQueued(inbound: Inbound, chat: ChatRef, sessionKey: string): Promise<boolean> {
    const max = this.#o.settings.maxQueued;
    if (max <= 0 || this.#exempt(inbound)) return true;
    if ((await this.#o.store.inbound.queuedForKey(sessionKey)) < max) return true;
    if ((await this.#o.store.rateCounts.add(`queue-full:${sessionKey}`, floorTo(this.#now(), MINUTE_MS))) === 1) {
      this.#o.log.info({ sessionKey, max }, 'a conversation has as many waiting messages as allowed; refused, told once');
      await this.#o.output.reply(chat, notices.queueFull(localeOrDefault(inbound.locale), max), inbound);
    }
    return false;
  }

  /** True while the sender and the chat have tokens left today; otherwise told once a day, and false. */
  async admitTokens(inbound: Inbound, chat: ChatRef): Promise<boolean> {
    const { personTokensPerDay, chatTokensPerDay } = this.#o.settings;
    if ((personTokensPerDay <= 0 && chatTokensPerDay <= 0) || this.#exempt(inbound)) return true;
    const now = this.#now();
    const day = floorTo(now, DAY_MS);
    const tomorrow = new Date(day.getTime() + DAY_MS);
    const { usage, rateCounts } = this.#o.store;
    const language = localeOrDefault(inbound.locale);
    if (personTokensPerDay > 0 && (await usage.ofPerson(inbound.channel, inbound.sender.id, day)) >= personTokensPerDay) {
      if ((await rateCounts.add(`budget-person:${inbound.channel}:${inbound.sender.id}`, day)) === 1) {
        await this.#o.output.reply(chat, notices.personBudget(language, personTokensPerDay, tomorrow, now), inbound);
      }
      return false;
    }
    if (chatTokensPerDay > 0 && (await usage.ofChat(inbound.channel, inbound.chatId, day)) >= chatTokensPerDay) {
      if ((await rateCounts.add(`budget-chat:${inbound.channel}:${inbound.chatId}`, day)) === 1) {
        await this.#o.output.reply(chat, notices.chatBudget(language, chatTokensPerDay, tomorrow, now), inbound);
      }
      return false;
    }
    return true;
  }

  /** Forgets old counts (run by the maintenance sweep). */
  async prune(): Promise<void> {
    const now = this.#now().getTime();
    if (now - this.#prunedAt < PRUNE_EVERY_MS) return;
    this.#prunedAt = now;
    await this.#o.store.rateCounts.prune(new Date(now - KEPT_MS));
  }
}
