// A deliberately simple token estimate for context budgeting. Tokenisers differ between models
// (OpenAI, Qwen, DeepSeek...), so an exact count for one would be wrong for the others; this errs
// on the generous side: ~4 characters per token for Latin text, 1 token per CJK character.
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/g;

export function estimateTokens(text: string): number {
  if (!text) return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil((text.length - cjk) / 4) + cjk;
}

/** Per-message overhead of the chat format (role, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** `text` cut (at a line end when one is near) to at most `tokens` estimated tokens, with `marker` after the cut. */
export function truncateToTokens(text: string, tokens: number, marker = '\n…'): string {
  if (estimateTokens(text) <= tokens) return text;
  let keep = Math.floor(text.length * (Math.max(0, tokens) / estimateTokens(text)));
  while (keep > 0 && estimateTokens(text.slice(0, keep)) > tokens) keep = Math.floor(keep * 0.9);
  // Never between the two halves of a surrogate pair.
  const cut = text.slice(0, keep).replace(/[\uD800-\uDBFF]$/, '');
  const lineEnd = cut.lastIndexOf('\n');
  return `${lineEnd > keep / 2 ? cut.slice(0, lineEnd) : cut}${marker}`;
}
