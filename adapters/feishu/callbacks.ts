// Card clicks waiting for their HTTP/ack answer. Feishu lets the answer to a card callback carry
// the updated card, so an edit of the clicked card made before the answer leaves rides in it
// instead of a separate (possibly slow) PATCH: the click is answered within the deadline and the
// card shows the outcome at once.
import type { FeishuCard } from './render.ts';

export interface PendingClick {
  readonly messageId: string;
  card: FeishuCard | undefined;
  open: boolean;
}

export class PendingClicks {
  readonly #byMessage = new Map<string, PendingClick[]>();

  open(messageId: string): PendingClick {
    const click: PendingClick = { messageId, card: undefined, open: true };
    const list = this.#byMessage.get(messageId) ?? [];
    list.push(click);
    this.#byMessage.set(messageId, list);
    return click;
  }

  /** Takes the new card for an unanswered click on this message; false when there is none. */
  takeEdit(messageId: string, card: FeishuCard): boolean {
    const click = this.#byMessage.get(messageId)?.find((c) => c.open);
    if (!click) return false;
    click.card = card;
    return true;
  }

  close(click: PendingClick): void {
    click.open = false;
    const list = (this.#byMessage.get(click.messageId) ?? []).filter((c) => c !== click);
    if (list.length === 0) this.#byMessage.delete(click.messageId);
    else this.#byMessage.set(click.messageId, list);
  }
}

/** Remembers recent keys (event ids) to drop repeated deliveries cheaply. */
export class RecentKeys {
  readonly #keys = new Set<string>();
  readonly #limit: number;
  constructor(limit = 5_000) {
    this.#limit = limit;
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  /** True the first time a key is seen. */
  add(key: string): boolean {
    if (this.#keys.has(key)) return false;
    this.#keys.add(key);
    if (this.#keys.size > this.#limit) this.#keys.delete(this.#keys.values().next().value!);
    return true;
  }
}
