// A person approving prompts on a platform that drops a click nobody acknowledged within 3 s
// (Discord, Feishu): when the prompt still shows its buttons a while after the click, they click
// again, as a person would.
const CLICK_AGAIN_AFTER_MS = 8_000;

export class Reclicker {
  readonly #lastClick = new Map<string, number>();
  clicks = 0;
  repeatedClicks = 0;

  /** Whether the prompt `key` (still showing its buttons) is to be clicked now. */
  due(key: string, now = Date.now()): boolean {
    const last = this.#lastClick.get(key);
    if (last !== undefined && now - last < CLICK_AGAIN_AFTER_MS) return false;
    this.#lastClick.set(key, now);
    this.clicks++;
    if (last !== undefined) this.repeatedClicks++;
    return true;
  }
}
