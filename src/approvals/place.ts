// An approval belongs to the chat (and thread) its prompt went to: its session's. A button copied
// or forwarded into another chat carries the same token, and the platform reports the press from
// where the copy is; a decision taken anywhere but the prompt's chat does not count.
import type { ApprovalRecord, SessionRecord } from '../store/types.ts';

/** Where a button press or a typed command came from, as the adapter reported it. */
export interface DecisionPlace {
  chatId: string;
  threadId?: string;
  /** The message whose button was pressed (absent for a typed command). */
  messageId?: string;
}

/**
 * Why a decision taken at `place` does not count for `approval`, whose session is `session` (the
 * same channel, checked before); undefined when it does.
 */
export function misplacedDecision(approval: ApprovalRecord, session: SessionRecord, place: DecisionPlace): string | undefined {
  if (place.chatId !== session.chatId) return 'another chat';
  // A press on the prompt itself is in its thread, also where the platform does not say which
  // thread a press came from (Feishu card clicks, Telegram messages it no longer shows in full).
  if (isThePrompt(approval, place)) return undefined;
  return (place.threadId ?? '') === (session.threadId ?? '') ? undefined : 'another thread';
}

function isThePrompt(approval: ApprovalRecord, place: DecisionPlace): boolean {
  const prompt = approval.promptRef;
  return prompt !== undefined && place.messageId !== undefined && prompt.chatId === place.chatId && prompt.messageId === place.messageId;
}
