// Where decisions about tool calls plug into the loop without the loop knowing who makes them
// (src/app.ts installs approvals here). The loop asks before every call whose arguments are valid.
import type { Wording } from '../core/i18n/index.ts';
import type { ToolCall } from '../llm/types.ts';
import type { ApprovalRecord } from '../store/types.ts';
import type { AnyTool, ToolContext, ToolOutput } from './tools.ts';

interface BeforeToolCall {
  call: ToolCall;
  tool: AnyTool;
  /** Validated arguments. */
  args: unknown;
  ctx: ToolContext;
  /** The stored assistant message that made the call. */
  messageId: number;
}

/** What the loop shows while a call waits for a person (an approval prompt). */
export interface HeldCall {
  approval: ApprovalRecord;
  /** What the call will do, in words (the tool's describe); absent: the prompt names the tool. */
  description?: Wording;
}

export type BeforeToolResult =
  | { allow: true }
  /** Not run: the reason becomes the call's error result and the turn goes on. */
  | { block: true; reason: string }
  /** Not run yet: the turn suspends until the call is settled (see ToolHooks.settle). */
  | { suspend: HeldCall };

/** What became of a call that was held: run it, or answer it with `result` without running it. */
export type Settlement = { run: true } | { result: string } | { pending: true };

/** A call that ran, with its result (before truncation). */
export interface AfterToolCall {
  call: ToolCall;
  tool: AnyTool;
  /** Validated arguments. */
  args: unknown;
  ctx: ToolContext;
  result: ToolOutput;
  durationMs: number;
}

export interface ToolHooks {
  beforeToolCall(input: BeforeToolCall): Promise<BeforeToolResult>;
  /**
   * Optional: whether beforeToolCall could do anything but allow the call (hold it for someone's
   * decision). Calls it would allow anyway may run before their round is written.
   */
  needsDecision?(input: Omit<BeforeToolCall, 'messageId'>): Promise<boolean>;
  /**
   * For the unanswered calls of a continued turn's last message: a settlement for each call that
   * was held (absent: it never was).
   */
  settle(turnId: string, calls: ToolCall[]): Promise<Map<string, Settlement>>;
  /**
   * Optional: a round's calls before they are written (plugins' beforeTool); may replace their
   * arguments. What it returns is what is written, held for approval and run.
   */
  prepareCalls?(calls: ToolCall[], ctx: ToolContext): Promise<ToolCall[]>;
  /** Optional: after a call ran (plugins' afterTool); may replace its result. */
  afterToolCall?(input: AfterToolCall): Promise<ToolOutput>;
}
