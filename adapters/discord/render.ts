// Neutral OutboundMessage → Discord message body. Markdown goes through as is (Discord renders
// CommonMark-like Markdown itself); mentions in the text never ping anyone; buttons become action
// rows within Discord's limits (5 rows × 5 buttons, label ≤ 80, custom_id ≤ 100).
import { createHash } from 'node:crypto';
import { ButtonStyle, ComponentType, type APIActionRowComponent, type APIButtonComponentWithCustomId } from 'discord.js';
import type { Button, OutboundMessage } from '../../src/core/types.ts';

export const MAX_CONTENT = 2000;
const MAX_ROWS = 5;
const MAX_PER_ROW = 5;
const MAX_LABEL = 80;
const MAX_CUSTOM_ID = 100;

type ActionRow = APIActionRowComponent<APIButtonComponentWithCustomId>;

interface MessageBody {
  content: string;
  components?: ActionRow[];
  allowed_mentions: { parse: []; replied_user: boolean };
  message_reference?: { message_id: string; fail_if_not_exists: false };
  nonce?: string;
  enforce_nonce?: boolean;
}

/** Discord's nonce is at most 25 characters: a digest of the core's key. */
function nonceOf(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 25);
}

function styleOf(button: Button): ButtonStyle.Primary | ButtonStyle.Danger | ButtonStyle.Secondary {
  if (button.style === 'primary') return ButtonStyle.Primary;
  if (button.style === 'danger') return ButtonStyle.Danger;
  return ButtonStyle.Secondary;
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function componentsOf(buttons: Button[][]): ActionRow[] {
  const rows = buttons.filter((row) => row.length > 0).slice(0, MAX_ROWS);
  return rows.map((row) => ({
    type: ComponentType.ActionRow,
    components: row.slice(0, MAX_PER_ROW).map((button) => {
      if (button.payload.length > MAX_CUSTOM_ID) throw new Error(`button payload longer than ${MAX_CUSTOM_ID} characters`);
      return { type: ComponentType.Button, style: styleOf(button), label: shorten(button.label, MAX_LABEL), custom_id: button.payload };
    }),
  }));
}

/** `edit`: buttons undefined keep the message's components (omitted); `[]` removes them. */
export function bodyOf(message: OutboundMessage, edit = false): MessageBody {
  const body: MessageBody = {
    // The core splits at capabilities.maxTextLength; this only guards against a caller that did not.
    content: shorten(message.text, MAX_CONTENT),
    allowed_mentions: { parse: [], replied_user: false },
  };
  if (message.buttons !== undefined) {
    const rows = componentsOf(message.buttons);
    if (rows.length > 0 || edit) body.components = rows;
  }
  if (!edit && message.replyToMessageId && /^\d+$/.test(message.replyToMessageId)) {
    body.message_reference = { message_id: message.replyToMessageId, fail_if_not_exists: false };
  }
  // With enforce_nonce, Discord returns the message an earlier send with this nonce made (for a
  // few minutes) instead of making another.
  if (!edit && message.idempotencyKey) {
    body.nonce = nonceOf(message.idempotencyKey);
    body.enforce_nonce = true;
  }
  return body;
}
