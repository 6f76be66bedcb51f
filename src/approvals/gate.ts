// Decides whether one tool call needs a person's approval: configuration overrides first, then
// the tool's own policy (tools that do not declare one are gated), then "always allow here"
// grants of the session. The model has no say in any of it.
import type { AnyTool, ToolContext } from '../agent/tools.ts';
import type { ApprovalOverride } from '../config/config.ts';

export interface ApprovalGate {
  readonly ttlMs: number;
  needsApproval(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<boolean>;
}

export interface ApprovalGateOptions {
  ttlMs: number;
  overrides: Record<string, ApprovalOverride>;
  isGranted(sessionId: string, toolName: string): Promise<boolean>;
}

function policyRequiresApproval(tool: AnyTool, override: ApprovalOverride | undefined, args: unknown, ctx: ToolContext): boolean {
  const policy = override ?? tool.approval ?? 'always';
  if (policy === 'never') return false;
  if (policy === 'always') return true;
  try {
    return policy(args, ctx);
  } catch {
    return true; // a broken policy function must fail closed
  }
}

export function createApprovalGate(options: ApprovalGateOptions): ApprovalGate {
  return {
    ttlMs: options.ttlMs,
    async needsApproval(tool, args, ctx) {
      if (!policyRequiresApproval(tool, options.overrides[tool.name.toLowerCase()], args, ctx)) return false;
      return !(await options.isGranted(ctx.sessionId, tool.name));
    },
  };
}
