// Approvals as the agent's tool hooks: before a call runs, the gate decides whether a person must
// approve it; if so the approval row is created here and the turn suspends. When the turn goes
// on, each held call is settled from its row: approved → run; denied or expired → a result naming
// who and why; still pending → wait.
import type { HeldCall, Settlement, ToolHooks } from '../agent/hooks.ts';
import type { AnyTool } from '../agent/tools.ts';
import type { Wording } from '../core/i18n/index.ts';
import type { ApprovalsRepo } from '../store/repos/approvals.ts';
import type { ApprovalRecord } from '../store/types.ts';
import type { ApprovalGate } from './gate.ts';

export interface ApprovalHookOptions {
  gate: ApprovalGate;
  approvals: Pick<ApprovalsRepo, 'create' | 'forTurn'>;
  now?: () => Date;
}

export function approvalHooks(options: ApprovalHookOptions): ToolHooks {
  const now = () => options.now?.() ?? new Date();
  return {
    async beforeToolCall({ call, tool, args, ctx, messageId }) {
      if (!(await options.gate.needsApproval(tool, args, ctx))) return { allow: true };
      const approval = await options.approvals.create({
        turnId: ctx.turnId,
        sessionId: ctx.sessionId,
        messageId,
        toolCallId: call.id,
        toolName: call.name,
        arguments: call.arguments,
        requester: ctx.requester,
        expiresAt: new Date(now().getTime() + options.gate.ttlMs),
      });
      const description = describeCall(tool, args);
      const held: HeldCall = { approval, ...(description ? { description } : {}) };
      return { suspend: held };
    },

    needsDecision: ({ tool, args, ctx }) => options.gate.needsApproval(tool, args, ctx),

    async settle(turnId, calls) {
      const byCall = new Map((await options.approvals.forTurn(turnId)).map((a) => [a.toolCallId, a]));
      const settled = new Map<string, Settlement>();
      for (const call of calls) {
        const approval = byCall.get(call.id);
        if (approval) settled.set(call.id, settlementOf(approval));
      }
      return settled;
    },
  };
}

function settlementOf(approval: ApprovalRecord): Settlement {
  switch (approval.status) {
    case 'pending':
      return { pending: true };
    case 'approved':
      return { run: true };
    case 'expired':
      return { result: 'Not run: nobody approved this call before it expired (treated as denied). Do not retry unless the user asks.' };
    case 'denied': {
      const who = approval.decidedBy?.displayName ?? 'someone';
      const why = approval.reason ? `: ${approval.reason}` : '';
      return { result: `Not run: ${who} denied this call${why}. Do not retry it unless the user asks.` };
    }
  }
}

/** The tool's words for the call; undefined (the prompt then names the tool) when it has none or they fail. */
function describeCall(tool: AnyTool, args: unknown): Wording | undefined {
  try {
    return tool.describe?.(args);
  } catch {
    return undefined;
  }
}
