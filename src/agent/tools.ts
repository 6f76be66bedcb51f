// Tools are declared with a zod schema (the JSON Schema the model sees is derived from it), a
// description, and an approval policy.
import { z } from 'zod';
import type { ChatRef } from '../core/types.ts';
import type { ToolSpec } from '../llm/types.ts';
import type { Logger } from '../log.ts';
import type { Person } from '../store/types.ts';

export interface ToolContext {
  sessionId: string;
  sessionKey: string;
  turnId: string;
  chat: ChatRef;
  requester: Person;
  /** Aborted by /stop, by shutdown, or when the tool's own timeout passes. */
  signal: AbortSignal;
  log: Logger;
}

/**
 * Whether a call needs a person's approval before it runs: `never`, `always`, or decided from
 * the (validated) arguments. Tools that do not say default to `always`.
 */
type ApprovalPolicy<A = unknown> = 'never' | 'always' | ((args: A, ctx: ToolContext) => boolean);

export interface ToolOutput {
  content: string;
  isError?: boolean;
}

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: S;
  /** The JSON Schema the model sees, when the tool brings its own (MCP); `parameters` still validates. */
  inputJsonSchema?: Record<string, unknown>;
  approval?: ApprovalPolicy<z.infer<S>>;
  /** Plain words for approval prompts: what this call will do. */
  describe?: (args: z.infer<S>) => string;
  /** Short label while it runs, e.g. "searching knowledge". */
  activity?: string;
  /** Overrides the default per-call timeout. */
  timeoutMs?: number;
  /**
   * True when running a call twice has the same effect as running it once (reads, setting a value).
   * A call interrupted by a crash is then run again on recovery (no start record is written for
   * it); otherwise it is never re-run and the model is told it may or may not have taken effect.
   */
  idempotent?: boolean;
  /**
   * Running it changes what the system prompt's context sections show (session memory): they are
   * built again for the next round. Other tools leave them as built in the turn's first round.
   */
  refreshesContext?: boolean;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<string | ToolOutput>;
}

/** Identity helper that keeps the argument type flowing from the schema into `execute`. */
export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): ToolDefinition<S> {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(definition.name)) {
    throw new Error(`Tool name "${definition.name}" must be 1-64 letters, digits, _ or -`);
  }
  return definition;
}

// Any tool, whatever its schema: the registry stores them side by side.
export type AnyTool = ToolDefinition<z.ZodType>;

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-7', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

export class ToolRegistry {
  readonly #tools = new Map<string, AnyTool>();
  #specs: ToolSpec[] | undefined;

  constructor(tools: Iterable<AnyTool> = []) {
    for (const tool of tools) this.register(tool);
  }

  register<S extends z.ZodType>(tool: ToolDefinition<S>): this {
    if (this.#tools.has(tool.name)) throw new Error(`A tool named "${tool.name}" is already registered`);
    this.#tools.set(tool.name, tool as unknown as AnyTool);
    this.#specs = undefined;
    return this;
  }

  /** Removes a tool (tools of MCP servers come and go); false when there was none. */
  unregister(name: string): boolean {
    this.#specs = undefined;
    return this.#tools.delete(name);
  }

  get(name: string): AnyTool | undefined {
    return this.#tools.get(name);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  list(): AnyTool[] {
    return [...this.#tools.values()];
  }

  /** Tool declarations for the model (computed once per registry change). */
  specs(): ToolSpec[] {
    this.#specs ??= this.list().map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.inputJsonSchema ?? jsonSchemaOf(tool.parameters),
    }));
    return this.#specs;
  }
}
