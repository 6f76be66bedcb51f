// What a turn reports while it runs. Renderers and logs subscribe; nothing here talks to a channel.
import type { Wording } from '../core/i18n/index.ts';
import type { ApprovalRecord, ReplyState, TurnStatus, Usage } from '../store/types.ts';

/**
 * Where a continued turn's answer goes: `refs` (possibly none) are the messages already showing
 * it, from round `fromRound` on; edit them in place, never send a copy. `rounds` holds the text of
 * every round the turn completed (round n at index n - 1).
 */
export type ReplyResume = ReplyState & { rounds: string[] };

export type AgentEvent =
  | { type: 'turn_start'; turnId: string; sessionId: string; resumed: boolean; reply?: ReplyResume }
  | { type: 'message_delta'; turnId: string; round: number; kind: 'text' | 'reasoning'; text: string }
  /** The model's answer is complete (a round without tool calls); turn_end follows once it is written. */
  | { type: 'answer_complete'; turnId: string; round: number }
  | { type: 'tool_start'; turnId: string; callId: string; name: string; arguments: string; activity?: Wording }
  | { type: 'tool_end'; turnId: string; callId: string; name: string; ok: boolean; durationMs: number }
  | { type: 'approval_requested'; turnId: string; approval: ApprovalRecord; description?: Wording }
  | { type: 'notice'; turnId: string; text: string }
  /** The model server said it is busy (429/503/Retry-After); the request is retried in `retryInMs`. */
  | { type: 'model_busy'; turnId: string; round: number; retryInMs: number }
  | {
      type: 'turn_end';
      turnId: string;
      status: TurnStatus;
      /** The final answer text (done), or the user-facing reason (failed/cancelled). */
      text: string;
      usage: Usage;
      rounds: number;
      error?: string;
    };

export type EmitEvent = (event: AgentEvent) => void;
