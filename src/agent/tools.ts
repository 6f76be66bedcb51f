// Tools are declared with a zod schema (the JSON Schema the model sees is derived from it), a
// description, and an approval policy.
import { z } from 'zod';
import type { Wording } from '../core/i18n/index.ts';
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
  /**
   * Plain words for approval prompts: what this call will do ("send an HTTP POST request to ..."),
   * a string or, to be shown in each person's language, a catalogue text or one string per locale.
   */
  describe?: (args: z.infer<S>) => Wording;
  /** Short label while it runs, e.g. "searching knowledge" (a string, or localised like `describe`). */
  activity?: Wording;
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

/**
 * What one tool may add to every model request. Tools come from servers Parley does not control
 * (MCP), and their declarations are sent with every request: one long description or schema would
 * cost every turn of every conversation.
 */
export interface ToolLimits {
  /** Characters of a description the model is shown; a longer one is cut. */
  descriptionChars: number;
  /** Bytes of a tool's JSON Schema (as JSON); a tool with a larger one is refused. */
  schemaBytes: number;
  /** Bytes of all declarations together; a tool that would go past it is refused. */
  listBytes: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = { descriptionChars: 1_024, schemaBytes: 8 * 1024, listBytes: 32 * 1024 };

/** A tool the registry will not declare to the model; the message names it and says why. */
export class ToolRefusedError extends Error {
  override name = 'ToolRefusedError';
}

export interface ToolRegistryOptions {
  /** Where warnings about tools the registry changed go (a description it cut). */
  log?: Logger;
}

function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
}

function bytesOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

export class ToolRegistry {
  readonly #tools = new Map<string, AnyTool>();
  readonly #declared = new Map<string, { spec: ToolSpec; bytes: number }>();
  readonly #log: Logger | undefined;
  /** Tools already warned about (name and what was done), so a tool registered again is not reported again. */
  readonly #warned = new Set<string>();
  #listBytes = 0;
  #specs: ToolSpec[] | undefined;

  constructor(tools: Iterable<AnyTool> = [], options: ToolRegistryOptions = {}) {
    this.#log = options.log;
    for (const tool of tools) this.register(tool);
  }

  /**
   * Adds a tool. Throws ToolRefusedError when its JSON Schema or the tool list would be too large;
   * a description over the limit is cut, with a warning (to `options.log`, else the registry's log).
   */
  register<S extends z.ZodType>(tool: ToolDefinition<S>, options: { log?: Logger } = {}): this {
    if (this.#tools.has(tool.name)) throw new Error(`A tool named "${tool.name}" is already registered`);
    const { spec, cut } = this.#declaration(tool as unknown as AnyTool);
    const bytes = bytesOf(spec);
    if (this.#listBytes + bytes > DEFAULT_TOOL_LIMITS.listBytes) {
      throw new ToolRefusedError(
        `tool ${tool.name} left out: its declaration (${kilobytes(bytes)}) would take the tool list past its ${kilobytes(DEFAULT_TOOL_LIMITS.listBytes)} budget`,
      );
    }
    this.#tools.set(tool.name, tool as unknown as AnyTool);
    this.#declared.set(tool.name, { spec, bytes });
    this.#listBytes += bytes;
    this.#specs = undefined;
    if (cut !== undefined) {
      this.#warnOnce(
        options.log,
        `${tool.name}:${cut}`,
        { tool: tool.name, descriptionChars: cut, kept: DEFAULT_TOOL_LIMITS.descriptionChars },
        `the description of tool ${tool.name} is cut to ${DEFAULT_TOOL_LIMITS.descriptionChars} characters (it has ${cut})`,
      );
    }
    return this;
  }

  /** Removes a tool (tools of MCP servers come and go); false when there was none. */
  unregister(name: string): boolean {
    this.#specs = undefined;
    this.#listBytes -= this.#declared.get(name)?.bytes ?? 0;
    this.#declared.delete(name);
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

  /** Tool declarations for the model (within the limits; computed once per registry change). */
  specs(): ToolSpec[] {
    this.#specs ??= [...this.#declared.values()].map((declared) => declared.spec);
    return this.#specs;
  }

  /** The declaration the model sees; `cut` is the original description length when it was cut. */
  #declaration(tool: AnyTool): { spec: ToolSpec; cut?: number } {
    const parameters = tool.inputJsonSchema ?? jsonSchemaOf(tool.parameters);
    const schemaBytes = bytesOf(parameters);
    if (schemaBytes > DEFAULT_TOOL_LIMITS.schemaBytes) {
      throw new ToolRefusedError(
        `tool ${tool.name} left out: its JSON Schema (${kilobytes(schemaBytes)}) is over the ${kilobytes(DEFAULT_TOOL_LIMITS.schemaBytes)} limit`,
      );
    }
    const max = DEFAULT_TOOL_LIMITS.descriptionChars;
    // By code points, so that a cut never splits a character.
    const chars = tool.description.length <= max ? undefined : [...tool.description];
    if (!chars || chars.length <= max) return { spec: { name: tool.name, description: tool.description, parameters } };
    return { spec: { name: tool.name, description: `${chars.slice(0, max - 1).join('')}…`, parameters }, cut: chars.length };
  }

  #warnOnce(log: Logger | undefined, key: string, details: Record<string, unknown>, message: string): void {
    const target = log ?? this.#log;
    if (!target || this.#warned.has(key)) return;
    this.#warned.add(key);
    target.warn(details, message);
  }
}
