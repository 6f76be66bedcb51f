// Neutral messages → Feishu interactive cards (JSON 1.0, `update_multi` so they stay editable for
// everyone). Markdown is written the way Feishu's card markdown shows it.
import type { Button, OutboundMessage } from '../../src/core/types.ts';

/** Feishu refuses cards over 30 KB; stay clear of it. */
export const MAX_CARD_BYTES = 30 * 1024;
/** Characters per message: 8,000 CJK characters (3 bytes each) still fit a card. */
export const MAX_TEXT_CHARS = 8_000;

export interface FeishuCard {
  config: { wide_screen_mode: boolean; update_multi: boolean };
  elements: object[];
}

/** Headings become bold lines (card markdown has none); `<` is escaped (it starts card tags). */
function markdownToCardMarkdown(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (not tab, newline, CR) are dropped on purpose
  const lines = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').split('\n');
  let inCode = false;
  const out = lines.map((line) => {
    if (/^\s*```/.test(line)) {
      inCode = !inCode;
      return line;
    }
    if (inCode) return line;
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    const escaped = (heading ? `**${heading[1]}**` : line).replace(/</g, '&lt;');
    return escaped;
  });
  return out.join('\n');
}

function buttonOf(button: Button): object {
  return {
    tag: 'button',
    text: { tag: 'plain_text', content: button.label },
    type: button.style === 'primary' ? 'primary' : button.style === 'danger' ? 'danger' : 'default',
    // Only the opaque token travels; the core looks the rest up in the database.
    value: { p: button.payload },
  };
}

export function cardOf(message: OutboundMessage): FeishuCard {
  const elements: object[] = [{ tag: 'markdown', content: markdownToCardMarkdown(message.text) || ' ' }];
  for (const row of message.buttons ?? []) {
    if (row.length > 0) elements.push({ tag: 'action', actions: row.map(buttonOf) });
  }
  return { config: { wide_screen_mode: true, update_multi: true }, elements };
}

export function cardBytes(card: FeishuCard): number {
  return Buffer.byteLength(JSON.stringify(card));
}

/** A card that names a person first (`<at>` in card markdown notifies them), for what the core tells one clicker. */
export function mentionCard(openId: string | undefined, text: string): FeishuCard {
  const card = cardOf({ text });
  const id = openId && /^[A-Za-z0-9_-]{1,100}$/.test(openId) ? openId : undefined;
  if (id) card.elements[0] = { tag: 'markdown', content: `<at id=${id}></at> ${markdownToCardMarkdown(text)}` };
  return card;
}
