// What a continued turn does with the calls of its last message that have no result yet, and how
// it picks up the answer that was being streamed when the process went away.
import { type Locale, t } from '../core/i18n/index.ts';
import type { ToolCall } from '../llm/types.ts';
import type { MessageRecord, TurnRecord } from '../store/types.ts';
import type { ReplyResume } from './events.ts';
import type { Settlement } from './hooks.ts';
import type { ToolResult } from './tool-runner.ts';
import type { ToolRegistry } from './tools.ts';

export interface OpenCallPlan {
  /** Run now: released calls that never started, and started calls of idempotent tools. */
  run: ToolCall[];
  /** Answered without running: settled with a result (e.g. denied), or interrupted mid-run. */
  settled: ToolResult[];
  /** Started but unfinished, not re-run: the chat is told. */
  interrupted: ToolCall[];
  /** Never started and never gated (the process stopped before it got to them): a normal tool step. */
  fresh: ToolCall[];
}

export const INTERRUPTED_RESULT =
  'Interrupted: this call was cut off before its result was recorded (the bot restarted or lost its database), so it may or may not have taken effect. It was not run again. Check its effect before calling it again, and tell the user.';

/**
 * Sorts the open calls; `started` holds the ids of calls that have a start record, `settlements`
 * what became of the held ones (none of them pending).
 */
export function planOpenCalls(
  open: ToolCall[],
  settlements: Map<string, Settlement>,
  started: Set<string>,
  tools: ToolRegistry,
): OpenCallPlan {
  const plan: OpenCallPlan = { run: [], settled: [], interrupted: [], fresh: [] };
  for (const call of open) {
    const settlement = settlements.get(call.id);
    if (started.has(call.id)) {
      if (tools.get(call.name)?.idempotent === true) plan.run.push(call);
      else {
        plan.interrupted.push(call);
        plan.settled.push(errorResult(call, INTERRUPTED_RESULT));
      }
    } else if (!settlement) plan.fresh.push(call);
    else if ('run' in settlement) plan.run.push(call);
    else if ('result' in settlement) plan.settled.push(errorResult(call, settlement.result));
    else throw new Error(`call ${call.id} is still pending`);
  }
  return plan;
}

export function interruptionNotice(calls: ToolCall[], locale: Locale): string {
  const names = [...new Set(calls.map((c) => c.name))].join(', ');
  return t(locale, 'chat.interrupted', { tools: names });
}

function errorResult(call: ToolCall, content: string): ToolResult {
  return { callId: call.id, name: call.name, content, isError: true, durationMs: 0 };
}

/**
 * Where a continued turn's answer goes: the messages that were showing it when the process went
 * away (edited in place), with the text of the rounds they already show. Rounds are counted as the
 * turn's assistant messages (one per completed round; the interrupted round has none).
 */
export function replyResume(turn: TurnRecord, messages: MessageRecord[]): ReplyResume {
  const rounds = messages.filter((m) => m.role === 'assistant').map((m) => m.content);
  return { ...(turn.replyState ?? { fromRound: rounds.length + 1, refs: [] }), rounds };
}
