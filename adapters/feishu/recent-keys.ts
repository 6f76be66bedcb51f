// Recent keys (event ids, message ids) to drop repeated deliveries cheaply, and to recognise the
// bot's own messages without asking the API.

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

  /** Forgets a key (its delivery failed: the next one is to be taken). */
  delete(key: string): void {
    this.#keys.delete(key);
  }

  /** True the first time a key is seen. */
  add(key: string): boolean {
    if (this.#keys.has(key)) return false;
    this.#keys.add(key);
    if (this.#keys.size > this.#limit) this.#keys.delete(this.#keys.values().next().value!);
    return true;
  }
}
