// One MCP tool as a Parley tool: named `<server>__<tool>`, its JSON Schema shown to the model and
// enforced before the call (and before any approval prompt), gated by its annotations, and its
// result or failure turned into a tool result the model can read.
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AnyTool, ToolOutput } from '../agent/tools.ts';
import { errorText } from '../core/errors.ts';
import { isServerAnswer, McpUnavailableError, type McpConnection } from './connection.ts';
import { argumentsSchema, modelSchema, type JsonObject } from './json-schema.ts';
import { loggable } from './loggable.ts';
import { describeMcpCall, type McpApproval } from './policy.ts';
import type { Redact } from './redact.ts';
import { toolOutput } from './result.ts';

interface McpToolOptions {
  exposedName: string;
  connection: McpConnection;
  policy: McpApproval;
  timeoutMs: number;
  validator: jsonSchemaValidator;
}

function failure(server: string, tool: string, error: unknown, redact: Redact): ToolOutput {
  const unknownEffect = 'It is not known whether the call took effect.';
  let text: string;
  if (error instanceof McpUnavailableError) text = error.message;
  else if (isServerAnswer(error)) text = `the MCP server "${server}" refused ${tool}: ${errorText(error)}`;
  else if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    text = `the MCP server "${server}" went away while running ${tool}; it is being restarted. ${unknownEffect}`;
  } else if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    text = `the MCP server "${server}" did not answer ${tool} in time. ${unknownEffect}`;
  } else
    text = `lost the connection to the MCP server "${server}" while running ${tool} (${errorText(error)}); reconnecting. ${unknownEffect}`;
  return { content: `Error: ${redact(text)}`, isError: true };
}

/** Throws when the tool's input schema cannot be compiled (the caller leaves the tool out). */
export function mcpTool(tool: Tool, options: McpToolOptions): AnyTool {
  const { connection, policy } = options;
  const { redact } = connection;
  const inputSchema = tool.inputSchema as JsonObject;
  const readOnly = tool.annotations?.readOnlyHint === true;
  return {
    name: options.exposedName,
    description: redact(
      tool.description?.trim() || tool.title || tool.annotations?.title || `The ${tool.name} tool of the MCP server "${connection.name}"`,
    ),
    parameters: argumentsSchema(inputSchema, options.validator),
    inputJsonSchema: JSON.parse(redact(JSON.stringify(modelSchema(inputSchema)))) as JsonObject,
    approval: policy.approval,
    describe: () => redact(describeMcpCall(connection.name, tool)),
    activity: { key: 'activity.usingServer', vars: { server: connection.name } },
    timeoutMs: options.timeoutMs,
    idempotent: readOnly || tool.annotations?.idempotentHint === true,
    async execute(args, ctx) {
      try {
        const output = toolOutput(await connection.call(tool.name, args, { signal: ctx.signal, timeoutMs: options.timeoutMs }));
        return { ...output, content: redact(output.content) };
      } catch (error) {
        // A stop or a timeout: the agent words those itself.
        if (ctx.signal.aborted) throw error;
        ctx.log.warn({ err: loggable(error, redact), mcpServer: connection.name, tool: tool.name }, 'MCP tool call failed');
        return failure(connection.name, tool.name, error, redact);
      }
    },
  };
}
