// A tool written in a user's project: `defineTool({...})` from 'parley'. It becomes one of the
// registry's tools (src/agent/tools.ts) and follows the same rules as the built-in ones: the
// approval gate, at-most-once across crashes unless idempotent, the timeout, truncation and loop
// detection all apply unchanged. Only its context differs: the public ToolContext below.
import type { z } from 'zod';
import { type AnyTool, defineTool as defineInternalTool, type ToolContext as InternalToolContext } from '../agent/tools.ts';
import type { ChatRef } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { Person } from '../store/types.ts';

/** The session's memory: the key/value facts the bot keeps for this conversation (shown to the model each turn). */
export interface SessionMemory {
  /** Every fact of this conversation's session. */
  list(): Promise<{ key: string; value: string }[]>;
  /** One fact's value, or undefined. */
  get(key: string): Promise<string | undefined>;
  /** Keeps (or replaces) a fact; the model sees it from the next turn on. */
  set(key: string, value: string): Promise<void>;
  /** Removes a fact; false when there was none. */
  delete(key: string): Promise<boolean>;
}

/** What a tool's `execute` and `approval` function are given besides the arguments. */
export interface ToolContext {
  /** The chat the call came from: channel instance id ('telegram', 'web', ...), chat id, chat type, thread. */
  chat: ChatRef;
  /** The person whose message started the turn. */
  requester: Person;
  /** The session (one conversation): `channel:chatId[:threadId][:userId]`. */
  sessionKey: string;
  turnId: string;
  /** Aborted by /stop, by shutdown, or when the tool's timeout passes: pass it to fetch() and the like. */
  signal: AbortSignal;
  /** Parley's logger (pino), tagged with the tool's name. */
  logger: Logger;
  memory: SessionMemory;
}

/** What `execute` returns: the text the model reads, or that text marked as an error. */
export type ToolResult = string | { content: string; isError?: boolean };

/**
 * Whether a call waits for a person's approval (a button in the chat) before it runs: `'never'`,
 * `'always'` (the default), or decided from the validated arguments. A function that throws counts
 * as `'always'`.
 */
export type ToolApproval<A> = 'never' | 'always' | ((args: A, ctx: ToolContext) => boolean);

/** The argument of `defineTool`. `S` is the zod schema of the arguments; `execute` gets them validated. */
export interface ToolOptions<S extends z.ZodType> {
  /** 1-64 letters, digits, `_` or `-`; unique among all tools (built-in ones included). */
  name: string;
  /** What the model is told the tool does (and when to use it). */
  description: string;
  /** The arguments as a zod schema; the model sees it as JSON Schema, and a call that does not match is answered with the error, never run. */
  parameters: S;
  approval?: ToolApproval<z.infer<S>>;
  /** Plain words for the approval prompt: what this call will do, e.g. `Send 3 € to Bob`. */
  describe?: (args: z.infer<S>) => string;
  /**
   * True when running a call twice has the same effect as running it once (a read). A call cut off
   * by a crash is then run again; otherwise it is never re-run and the model is told it may or may
   * not have taken effect.
   */
  idempotent?: boolean;
  /** This tool's timeout in ms (default: PARLEY_TOOL_TIMEOUT, 30 s). */
  timeoutMs?: number;
  /** Short label shown while it runs, e.g. `checking the weather`. */
  activity?: string;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolResult> | ToolResult;
}

/**
 * A tool made by `defineTool`: put it in `defineConfig({ tools: [...] })`. Its argument type is
 * checked where it is defined; here it is erased, so that tools of any schema fit in one array.
 */
export interface Tool {
  readonly kind: 'parley.tool';
  readonly name: string;
  readonly options: ToolOptions<z.ZodType>;
}

/** Declares a tool. Throws at once on a name the model could not call. */
export function defineTool<S extends z.ZodType>(options: ToolOptions<S>): Tool {
  // The same checks the built-in tools get.
  defineInternalTool({ name: options.name, description: options.description, parameters: options.parameters, execute: async () => '' });
  return { kind: 'parley.tool', name: options.name, options: options as unknown as ToolOptions<z.ZodType> };
}

/** Where user tools' memory is kept: the store's memory repository. */
export interface MemoryStore {
  list(sessionId: string): Promise<{ key: string; value: string }[]>;
  set(sessionId: string, key: string, value: string): Promise<void>;
  delete(sessionId: string, key: string): Promise<boolean>;
}

/** The memory of one session, for tools and commands. */
export function sessionMemory(memory: MemoryStore, sessionId: string): SessionMemory {
  return {
    list: async () => (await memory.list(sessionId)).map(({ key, value }) => ({ key, value })),
    get: async (key) => (await memory.list(sessionId)).find((fact) => fact.key === key)?.value,
    set: (key, value) => memory.set(sessionId, key, value),
    delete: (key) => memory.delete(sessionId, key),
  };
}

function publicToolContext(ctx: InternalToolContext, memory: MemoryStore, toolName: string): ToolContext {
  return {
    chat: ctx.chat,
    requester: ctx.requester,
    sessionKey: ctx.sessionKey,
    turnId: ctx.turnId,
    signal: ctx.signal,
    logger: ctx.log.child({ tool: toolName }),
    memory: sessionMemory(memory, ctx.sessionId),
  };
}

/** The registry's tool for a user's tool: its context made public, its result passed as is. */
export function registryTool({ options: tool }: Tool, memory: MemoryStore): AnyTool {
  const { approval } = tool;
  return defineInternalTool({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    ...(approval === undefined
      ? {}
      : { approval: typeof approval === 'function' ? (args, ctx) => approval(args, publicToolContext(ctx, memory, tool.name)) : approval }),
    ...(tool.describe ? { describe: tool.describe } : {}),
    ...(tool.idempotent === undefined ? {} : { idempotent: tool.idempotent }),
    ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
    ...(tool.activity === undefined ? {} : { activity: tool.activity }),
    execute: async (args, ctx) => tool.execute(args, publicToolContext(ctx, memory, tool.name)),
  });
}
