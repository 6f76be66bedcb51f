// Lets many statements run at once, or one transaction alone: while a transaction holds the
// gate, other statements wait for its end instead of landing inside it (one SQLite connection).
export class Gate {
  private tail: Promise<void> = Promise.resolve();
  private held: Promise<void> | undefined;

  async outside<T>(work: () => Promise<T>): Promise<T> {
    while (this.held) await this.held;
    return work();
  }

  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.tail = previous.then(() => mine);
    await previous;
    this.held = mine;
    try {
      return await work();
    } finally {
      this.held = undefined;
      release();
    }
  }
}
