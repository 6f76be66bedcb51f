// A hash table from stretches of a text to values, looked up without cutting the stretch out of
// the text: the tokenizer finds each word it has seen before without allocating a string or
// hashing one (which is most of the cost of tokenising a large import).

/** FNV-1a over the character codes of text[start, end). */
export function hashSpan(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash | 0;
}

export class WordTable<V> {
  #slots = new Int32Array(1 << 12);
  #words: string[] = [];
  #hashes: number[] = [];
  #values: V[] = [];

  get size(): number {
    return this.#words.length;
  }

  /** The value stored for text[start, end) (whose hash is `hash`), or undefined. */
  get(text: string, start: number, end: number, hash: number): V | undefined {
    const mask = this.#slots.length - 1;
    const length = end - start;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const slot = this.#slots[i]!;
      if (slot === 0) return undefined;
      const e = slot - 1;
      if (this.#hashes[e] !== hash) continue;
      const word = this.#words[e]!;
      if (word.length !== length) continue;
      let same = true;
      for (let k = 0; k < length; k++) {
        if (word.charCodeAt(k) !== text.charCodeAt(start + k)) {
          same = false;
          break;
        }
      }
      if (same) return this.#values[e];
    }
  }

  /** Stores `value` for `word` (not present yet), whose hash is hashSpan(word, 0, word.length). */
  set(word: string, hash: number, value: V): void {
    if ((this.#words.length + 1) * 2 > this.#slots.length) this.#grow();
    this.#words.push(word);
    this.#hashes.push(hash);
    this.#values.push(value);
    this.#place(this.#words.length, hash);
  }

  clear(): void {
    this.#slots = new Int32Array(1 << 12);
    this.#words = [];
    this.#hashes = [];
    this.#values = [];
  }

  #place(slot: number, hash: number): void {
    const mask = this.#slots.length - 1;
    let i = hash & mask;
    while (this.#slots[i] !== 0) i = (i + 1) & mask;
    this.#slots[i] = slot;
  }

  #grow(): void {
    this.#slots = new Int32Array(this.#slots.length * 2);
    for (let e = 0; e < this.#hashes.length; e++) this.#place(e + 1, this.#hashes[e]!);
  }
}
