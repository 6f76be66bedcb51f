// Whether a call to an MCP tool needs a person's approval. The server's annotations decide by
// default — only a tool that says it is read-only runs without asking — and the configuration
// file may override per tool. PARLEY_APPROVAL_<TOOL> still wins over both (the approval gate).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalSetting } from '../config-file/schema.ts';
import { firstMatch } from './names.ts';

export interface McpApproval {
  approval: ApprovalSetting;
  /** Why, in a few words (for `parley mcp list`). */
  reason: string;
}

function annotationReason(tool: Tool): string {
  const a = tool.annotations;
  if (!a) return 'no annotations';
  if (a.destructiveHint === true) return 'destructive';
  if (a.openWorldHint === true) return 'open world, not read-only';
  return 'not marked read-only';
}

export function mcpApproval(tool: Tool, configured: Record<string, ApprovalSetting>): McpApproval {
  const setting = firstMatch(configured, tool.name);
  if (setting) return { approval: setting, reason: 'configuration file' };
  if (tool.annotations?.readOnlyHint === true) return { approval: 'never', reason: 'read-only' };
  return { approval: 'always', reason: annotationReason(tool) };
}

/** The words of an approval prompt: "Alice asked me to <this>." */
export function describeMcpCall(server: string, tool: Tool): string {
  const title = tool.title ?? tool.annotations?.title;
  const what = title && title !== tool.name ? `${tool.name} (${title})` : tool.name;
  const destructive = tool.annotations?.destructiveHint === true ? ', which the server marks as destructive' : '';
  return `run ${what} on the MCP server "${server}"${destructive}`;
}
