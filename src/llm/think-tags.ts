// Models served without a reasoning parser (Qwen3, DeepSeek-R1 distills on Ollama or vLLM) put
// their reasoning at the start of `content` as `<think>...</think>`. That block is reasoning, like
// `reasoning_content` elsewhere: never shown in a chat, never sent back as answer text. The tags can
// be split across deltas (`<thi` + `nk>`), so the start of the content is held until it is clear.
const OPEN = '<think>';
const CLOSE = '</think>';

export interface ContentParts {
  reasoning: string;
  text: string;
}

/** The longest end of `text` that is the beginning of `tag`: it may be completed by the next delta. */
function heldTail(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (tag.startsWith(text.slice(-n))) return n;
  return 0;
}

export class ThinkTagSplitter {
  #state: 'start' | 'thinking' | 'answer' = 'start';
  #pending = '';
  /** Just past `</think>`: the whitespace that separates it from the answer is dropped. */
  #trimNext = false;

  feed(delta: string): ContentParts {
    if (this.#state === 'answer') {
      if (!this.#trimNext) return { reasoning: '', text: delta };
      const text = delta.trimStart();
      if (text !== '') this.#trimNext = false;
      return { reasoning: '', text };
    }
    const buffer = this.#pending + delta;
    if (this.#state === 'start') {
      const trimmed = buffer.trimStart();
      if (trimmed === '' || (trimmed.length < OPEN.length && OPEN.startsWith(trimmed))) {
        this.#pending = buffer;
        return { reasoning: '', text: '' };
      }
      if (!trimmed.startsWith(OPEN)) {
        this.#state = 'answer';
        this.#pending = '';
        return { reasoning: '', text: buffer };
      }
      this.#state = 'thinking';
      this.#pending = '';
      return this.#thinking(trimmed.slice(OPEN.length));
    }
    return this.#thinking(buffer);
  }

  #thinking(buffer: string): ContentParts {
    const close = buffer.indexOf(CLOSE);
    if (close >= 0) {
      this.#state = 'answer';
      this.#pending = '';
      const text = buffer.slice(close + CLOSE.length).trimStart();
      this.#trimNext = text === '';
      return { reasoning: buffer.slice(0, close), text };
    }
    const held = heldTail(buffer, CLOSE);
    this.#pending = buffer.slice(buffer.length - held);
    return { reasoning: buffer.slice(0, buffer.length - held), text: '' };
  }

  /** What is still held when the content ends: an unfinished block is reasoning, anything else text. */
  end(): ContentParts {
    const pending = this.#pending;
    this.#pending = '';
    if (this.#state === 'thinking') return { reasoning: pending, text: '' };
    return { reasoning: '', text: this.#state === 'start' ? pending.trimStart() : pending };
  }
}
