// Runs one message's tool calls concurrently. Every failure mode (unknown tool, invalid JSON,
// arguments that fail the schema, a throw, a timeout, a stop) becomes an error result the model
// can read; nothing here throws into the turn.
import { z } from 'zod';
import { errorText } from '../core/errors.ts';
import { ShutdownRequest } from './abort.ts';
import type { AfterToolCall } from './hooks.ts';
import type { ToolCall } from '../llm/types.ts';
import type { AnyTool, ToolContext, ToolOutput, ToolRegistry } from './tools.ts';

export interface ToolResult {
  callId: string;
  name: string;
  content: string;
  isError: boolean;
  durationMs: number;
}

export type ParsedArguments = { ok: true; args: unknown } | { ok: false; error: string };

/** JSON-parse and schema-validate a call's arguments. */
export function parseArguments(tool: AnyTool, raw: string): ParsedArguments {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    return { ok: false, error: `Invalid arguments for ${tool.name}: not valid JSON (${errorText(error)}). Send a JSON object.` };
  }
  const result = tool.parameters.safeParse(json);
  if (!result.success) {
    return { ok: false, error: `Invalid arguments for ${tool.name}: ${z.prettifyError(result.error).replace(/\n/g, '; ')}` };
  }
  return { ok: true, args: result.data };
}

function truncateResult(content: string, maxChars: number): string {
  if (content.length <= maxChars) return content;
  const note = `\n[truncated: showing ${maxChars} of ${content.length} characters]`;
  return content.slice(0, Math.max(0, maxChars - note.length)) + note;
}

export interface RunOptions {
  timeoutMs: number;
  maxResultChars: number;
  onStart?: (call: ToolCall, tool: AnyTool | undefined) => void;
  onEnd?: (result: ToolResult) => void;
  /** After a call of a known tool with valid arguments ran: may replace its result (before truncation). */
  after?: (input: AfterToolCall) => Promise<ToolOutput>;
}

class ToolTimeout extends Error {}

async function runOne(call: ToolCall, registry: ToolRegistry, ctx: ToolContext, options: RunOptions): Promise<ToolResult> {
  const started = performance.now();
  const tool = registry.get(call.name);
  options.onStart?.(call, tool);
  let ran: { tool: AnyTool; args: unknown } | undefined;
  const finish = async (content: string, isError: boolean): Promise<ToolResult> => {
    if (ran && options.after) {
      const durationMs = performance.now() - started;
      ({ content, isError } = await options.after({ call, ...ran, ctx, result: { content, isError }, durationMs }).then(
        (output) => ({ content: output.content, isError: output.isError ?? false }),
        () => ({ content, isError }),
      ));
    }
    const result = {
      callId: call.id,
      name: call.name,
      content: truncateResult(content, options.maxResultChars),
      isError,
      durationMs: performance.now() - started,
    };
    options.onEnd?.(result);
    return result;
  };

  if (!tool) {
    return finish(`Unknown tool "${call.name}". Available tools: ${registry.names().join(', ') || 'none'}.`, true);
  }
  const parsed = parseArguments(tool, call.arguments);
  if (!parsed.ok) return finish(parsed.error, true);
  if (ctx.signal.aborted) return finish('Not run: the turn was stopped.', true);
  ran = { tool, args: parsed.args };

  const timeoutMs = tool.timeoutMs ?? options.timeoutMs;
  const controller = new AbortController();
  const signal = AbortSignal.any([ctx.signal, controller.signal]);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new ToolTimeout());
      reject(new ToolTimeout());
    }, timeoutMs);
  });
  const stopped = new Promise<never>((_, reject) => {
    if (ctx.signal.aborted) reject(ctx.signal.reason);
    ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
  });
  // Both may settle after the race is decided; they must never surface as unhandled rejections.
  timedOut.catch(() => {});
  stopped.catch(() => {});
  try {
    const output = await Promise.race([tool.execute(parsed.args, { ...ctx, signal }), timedOut, stopped]);
    if (typeof output === 'string') return finish(output, false);
    return finish(output.content, output.isError ?? false);
  } catch (error) {
    if (error instanceof ToolTimeout) return finish(`Error: ${call.name} timed out after ${timeoutMs} ms.`, true);
    if (ctx.signal.aborted) {
      return ctx.signal.reason instanceof ShutdownRequest
        ? finish('Interrupted: the bot restarted while this tool ran; it is not known whether it completed.', true)
        : finish('Cancelled: the turn was stopped while this tool ran.', true);
    }
    return finish(`Error: ${call.name} failed: ${errorText(error)}`, true);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the calls concurrently; results come back in call order. */
export function runToolCalls(calls: ToolCall[], registry: ToolRegistry, ctx: ToolContext, options: RunOptions): Promise<ToolResult[]> {
  return Promise.all(calls.map((call) => runOne(call, registry, ctx, options)));
}
