// Long polling hands the messages of one getUpdates batch to the core side by side, one chat's in
// the order they came, and asks for the next batch (which confirms this one) only once every one
// of them is taken. Nothing is confirmed before it is stored, and a batch of a hundred chats does
// not wait for a hundred database writes one after another.

export class UpdateTakes {
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
