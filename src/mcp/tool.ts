// One MCP tool as a Parley tool: named `<server>__<tool>`, its JSON Schema shown to the model and
// enforced before the call (and before any approval prompt), gated by its annotations, and its
// result or failure turned into a tool result the model can read.
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AnyTool, ToolOutput } from '../agent/tools.ts';
import { errorText } from '../core/errors.ts';
import { McpUnavailableError, type McpConnection } from './connection.ts';
import { argumentsSchema, modelSchema, type JsonObject } from './json-schema.ts';
import { describeMcpCall, type McpApproval } from './policy.ts';
import { toolOutput } from './result.ts';

export interface McpToolOptions {
  exposedName: string;
  connection: McpConnection;
  policy: McpApproval;
  timeoutMs: number;
  validator: jsonSchemaValidator;
}

function failure(server: string, tool: string, error: unknown): ToolOutput {
  if (error instanceof McpUnavailableError) return { content: `Error: ${error.message}`, isError: true };
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return {
      content: `Error: the MCP server "${server}" went away while running ${tool}; it is being restarted. It is not known whether the call took effect.`,
      isError: true,
    };
  }
  return { content: `Error: the MCP server "${server}" could not run ${tool}: ${errorText(error)}`, isError: true };
}

/** Throws when the tool's input schema cannot be compiled (the caller leaves the tool out). */
export function mcpTool(tool: Tool, options: McpToolOptions): AnyTool {
  const { connection, policy } = options;
  const inputSchema = tool.inputSchema as JsonObject;
  const readOnly = tool.annotations?.readOnlyHint === true;
  return {
    name: options.exposedName,
    description: tool.description?.trim() || tool.title || tool.annotations?.title || `The ${tool.name} tool of the MCP server "${connection.name}"`,
    parameters: argumentsSchema(inputSchema, options.validator),
    inputJsonSchema: modelSchema(inputSchema),
    approval: policy.approval,
    describe: () => describeMcpCall(connection.name, tool),
    activity: `using ${connection.name}`,
    timeoutMs: options.timeoutMs,
    idempotent: readOnly || tool.annotations?.idempotentHint === true,
    async execute(args, ctx) {
      try {
        return toolOutput(await connection.call(tool.name, args, { signal: ctx.signal, timeoutMs: options.timeoutMs }));
      } catch (error) {
        // A stop or a timeout: the agent words those itself.
        if (ctx.signal.aborted) throw error;
        ctx.log.warn({ err: error, mcpServer: connection.name, tool: tool.name }, 'MCP tool call failed');
        return failure(connection.name, tool.name, error);
      }
    },
  };
}
