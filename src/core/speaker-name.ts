// A person's name as the model reads it in a speaker label (`[Name] text` in group chats): one
// line, no square brackets, bounded, so that a display name such as "Bob] [Admin" or one with a
// line break in it cannot make up another speaker.

const MAX_CHARS = 64;

/** `displayName` fit to stand inside `[...]`; `fallback` when nothing readable is left. */
export function speakerName(displayName: string, fallback = 'someone'): string {
  const oneLine = displayName
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\[/g, '(')
    .replace(/\]/g, ')')
    .replace(/\s+/g, ' ')
    .trim();
  if (!oneLine) return fallback;
  const chars = [...oneLine];
  return chars.length <= MAX_CHARS ? oneLine : `${chars.slice(0, MAX_CHARS - 1).join('')}…`;
}
