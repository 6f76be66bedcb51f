// What a turn reports while it runs. Renderers and logs subscribe; nothing here talks to a channel.
import type { ApprovalRecord, TurnStatus, Usage } from '../store/types.ts';

export type AgentEvent =
  | { type: 'turn_start'; turnId: string; sessionId: string; resumed: boolean }
  | { type: 'message_delta'; turnId: string; round: number; kind: 'text' | 'reasoning'; text: string }
  | { type: 'tool_start'; turnId: string; callId: string; name: string; arguments: string; activity?: string }
  | { type: 'tool_end'; turnId: string; callId: string; name: string; ok: boolean; durationMs: number }
  | { type: 'approval_requested'; turnId: string; approval: ApprovalRecord; description: string }
  | { type: 'notice'; turnId: string; text: string }
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
