// Idempotency keys (OutboundMessage.idempotencyKey) for the messages that are not pieces of an
// answer: the same message sent again (by the process that takes over after a crash, or a retry
// whose first try did land) makes no second one where the platform de-duplicates (Discord, Feishu).
import { createHash } from 'node:crypto';
import type { Inbound } from '../core/types.ts';

export const promptKey = (approvalId: string): string => `approval:${approvalId}`;

export const noticeKey = (turnId: string | undefined, notice: 'busy' | 'undelivered'): { idempotencyKey?: string } =>
  turnId ? { idempotencyKey: `${turnId}:${notice}` } : {};

/** A reply to a person's message: one per message and text. */
export function replyKey(inbound: Inbound, text: string): string {
  return `reply:${createHash('sha256').update(`${inbound.channel}\u0000${inbound.eventId}\u0000${text}`).digest('base64url').slice(0, 32)}`;
}
