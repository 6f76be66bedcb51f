// Telegram's flood control, as the fake Bot API applies it when a test turns it on: messages sent or
// edited count against a global budget per second and a budget per group chat (Telegram: about
// 30 messages per second overall, 20 per minute in a group). A request over a budget is answered
// 429 with retry_after, the whole seconds until its window has room again. Refused requests do not
// count, as on Telegram.
import type { TgError } from './types.ts';
import { errors } from './types.ts';

export interface RateLimits {
  /** Messages per second across all chats (Telegram: 30). */
  globalPerSecond?: number;
  /** Messages per group chat within `groupWindowMs` (Telegram: 20 per minute). */
  groupLimit?: number;
  groupWindowMs?: number;
}

/** The methods that count as messages. */
const LIMITED = new Set(['sendMessage', 'editMessageText']);

export class FloodControl {
  readonly #limits: Required<RateLimits>;
  readonly #global: number[] = [];
  readonly #groups = new Map<number, number[]>();
  /** How many requests were refused with 429. */
  refused = 0;

  constructor(limits: RateLimits) {
    this.#limits = {
      globalPerSecond: limits.globalPerSecond ?? Number.POSITIVE_INFINITY,
      groupLimit: limits.groupLimit ?? Number.POSITIVE_INFINITY,
      groupWindowMs: limits.groupWindowMs ?? 60_000,
    };
  }

  /** A 429 for this request, or undefined when it may go ahead (then it is counted). */
  check(method: string, chatId: number | undefined, now = Date.now()): TgError | undefined {
    if (!LIMITED.has(method)) return undefined;
    const { globalPerSecond, groupLimit, groupWindowMs } = this.#limits;
    const waits: number[] = [];
    const global = prune(this.#global, now - 1_000);
    if (global.length >= globalPerSecond) waits.push(global[global.length - globalPerSecond]! + 1_000 - now);
    const group = chatId !== undefined && chatId < 0 ? prune(this.#groups.get(chatId) ?? [], now - groupWindowMs) : undefined;
    if (group && group.length >= groupLimit) waits.push(group[group.length - groupLimit]! + groupWindowMs - now);
    if (waits.length > 0) {
      this.refused++;
      return errors.tooManyRequests(Math.max(1, Math.ceil(Math.max(...waits) / 1_000)));
    }
    global.push(now);
    if (group && chatId !== undefined) {
      group.push(now);
      this.#groups.set(chatId, group);
    }
    return undefined;
  }
}

/** Drops timestamps at or before `after` (the list is in time order); returns the same list. */
function prune(times: number[], after: number): number[] {
  let stale = 0;
  while (stale < times.length && times[stale]! <= after) stale++;
  times.splice(0, stale);
  return times;
}
