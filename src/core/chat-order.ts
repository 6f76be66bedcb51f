// Messages handed to the core side by side, one chat's in the order they came: a chat's next
// message is taken once its earlier ones have been, while other chats go on. Used by adapters
// whose platform delivers several chats' messages at once (a Telegram getUpdates batch, the
// Discord gateway); settled() tells when everything started so far is taken.

export class ChatOrder {
  /** Per chat, the end of its last take (never rejects). */
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `take` once the chat's earlier takes have ended; the returned promise is `take`'s. */
  run(chatKey: string, take: () => Promise<void>): Promise<void> {
    const previous = this.#tails.get(chatKey);
    const result = previous ? previous.then(take) : take();
    const tail = result.then(
      () => {},
      () => {},
    );
    this.#tails.set(chatKey, tail);
    void tail.then(() => {
      if (this.#tails.get(chatKey) === tail) this.#tails.delete(chatKey);
    });
    return result;
  }

  /** Resolves once every take started so far (and any started meanwhile) has ended, taken or failed. */
  async settled(): Promise<void> {
    for (;;) {
      const pending = [...this.#tails.values()];
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }
}
