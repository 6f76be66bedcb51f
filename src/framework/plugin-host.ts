// Runs the plugins of a project's parley.config: each hook bounded by its plugin's timeout, its
// failure logged with the plugin's name. What a failure means depends on the hook:
// - beforeTool fails closed: the call is blocked and the model told why (it guards what runs);
// - onMessage, afterTool and context sections fail open: the message goes on, the result is kept,
//   the section is left out (a broken plugin must not silence the bot);
// - observers (beforeModelRequest, afterModelResponse, onTurnEnd) are not waited for.
import type { ContextSection as AgentContextSection } from '../agent/agent.ts';
import type { AfterToolCall, ToolHooks } from '../agent/hooks.ts';
import type { ToolContext as InternalToolContext, ToolOutput } from '../agent/tools.ts';
import type { CommandInfo } from '../core/commands.ts';
import { errorText } from '../core/errors.ts';
import type { ChatRef, Inbound } from '../core/types.ts';
import type { LlmClient, ToolCall } from '../llm/types.ts';
import type { Logger } from '../log.ts';
import type { Person } from '../store/types.ts';
import type { HookContext, Plugin, ToolCallInfo, TurnEndInfo } from './plugin.ts';
import { type MemoryStore, sessionMemory } from './tool.ts';

const DEFAULT_HOOK_TIMEOUT_MS = 5_000;
/** Verdicts of beforeTool kept between a round's preparation and its calls' gate (see prepareCalls). */
const MAX_REMEMBERED_VERDICTS = 10_000;

class HookTimeout extends Error {
  override name = 'HookTimeout';
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `hook`, waiting at most `ms` for it; a throw or a timeout is an outcome, never a throw. */
async function bounded<T>(ms: number, hook: () => Promise<T> | T): Promise<Outcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HookTimeout(`did not answer within ${ms} ms`)), ms);
  });
  try {
    return { ok: true, value: await Promise.race([Promise.resolve().then(hook), timeout]) };
  } catch (error) {
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

function parsedArgs(raw: string): unknown {
  try {
    return raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return raw;
  }
}

export interface PluginCommandInput {
  name: string;
  args: string;
  chat: ChatRef;
  sender: Person;
  sessionId: string;
}

export class PluginHost {
  readonly #plugins: readonly Plugin[];
  readonly #log: Logger;
  readonly #memory: MemoryStore;
  /** `turnId callId` → the reason beforeTool blocked it, or null when it let it go on. */
  readonly #verdicts = new Map<string, string | null>();

  constructor(plugins: readonly Plugin[], options: { log: Logger; memory: MemoryStore }) {
    this.#plugins = plugins;
    this.#log = options.log;
    this.#memory = options.memory;
  }

  get size(): number {
    return this.#plugins.length;
  }

  #context(plugin: Plugin): HookContext {
    return { logger: this.#log.child({ plugin: plugin.name }) };
  }

  #failed(plugin: Plugin, hook: string, error: unknown, consequence: string): void {
    this.#log.warn(
      { err: error, plugin: plugin.name, hook },
      `plugin ${plugin.name}: ${hook} failed (${errorText(error)}); ${consequence}`,
    );
  }

  async #run<T>(plugin: Plugin, hook: string, consequence: string, run: () => Promise<T> | T): Promise<Outcome<T>> {
    const outcome = await bounded(plugin.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS, run);
    if (!outcome.ok) this.#failed(plugin, hook, outcome.error, consequence);
    return outcome;
  }

  /** Not waited for: an observer's failure is logged and nothing else. */
  #observe(hook: 'beforeModelRequest' | 'afterModelResponse' | 'onTurnEnd', call: (plugin: Plugin, ctx: HookContext) => unknown): void {
    for (const plugin of this.#plugins) {
      if (!plugin[hook]) continue;
      void this.#run(plugin, hook, 'ignored', () => call(plugin, this.#context(plugin)));
    }
  }

  /** Whether an inbound message goes on (no plugin's onMessage dropped it). */
  async admit(inbound: Inbound): Promise<boolean> {
    for (const plugin of this.#plugins) {
      if (!plugin.onMessage) continue;
      const outcome = await this.#run(plugin, 'onMessage', 'the message goes on', () => plugin.onMessage!(inbound, this.#context(plugin)));
      if (outcome.ok && outcome.value && 'drop' in outcome.value && outcome.value.drop === true) {
        this.#log.debug({ plugin: plugin.name, channel: inbound.channel, chatId: inbound.chatId }, 'a plugin dropped an inbound message');
        return false;
      }
    }
    return true;
  }

  /** The plugins' context sections, as the agent's turn sections (made once per turn, kept with it). */
  turnSections(): AgentContextSection[] {
    return this.#plugins.flatMap((plugin) =>
      (plugin.contextSections ?? []).map(
        (section): AgentContextSection =>
          async ({ turn, userText, signal }) => {
            const outcome = await this.#run(plugin, 'contextSection', 'the turn goes on without it', () =>
              section({ chat: turn.origin.chat, requester: turn.origin.requester, userText, signal, logger: this.#context(plugin).logger }),
            );
            return outcome.ok && typeof outcome.value === 'string' ? outcome.value : undefined;
          },
      ),
    );
  }

  /** The agent's tool hooks: the plugins' beforeTool and afterTool around `inner` (the approval gate). */
  toolHooks(inner: ToolHooks): ToolHooks {
    const before = this.#plugins.filter((plugin) => plugin.beforeTool);
    const after = this.#plugins.filter((plugin) => plugin.afterTool);
    if (before.length === 0 && after.length === 0) return inner;
    const hooks: ToolHooks = {
      ...inner,
      settle: (turnId, calls) => inner.settle(turnId, calls),
      beforeToolCall: async (input) => {
        const key = `${input.ctx.turnId} ${input.call.id}`;
        let blocked = this.#verdicts.get(key);
        this.#verdicts.delete(key);
        // Not prepared by this process (a turn continued after a restart): asked now; new arguments can no longer apply.
        if (blocked === undefined && before.length > 0) blocked = (await this.#beforeTool(before, input.call, input.ctx)).blocked;
        if (blocked) return { block: true, reason: blocked };
        return inner.beforeToolCall(input);
      },
    };
    if (inner.needsDecision) {
      const needsDecision = inner.needsDecision;
      hooks.needsDecision = async (input) => Boolean(this.#verdicts.get(`${input.ctx.turnId} ${input.call.id}`)) || needsDecision(input);
    }
    if (before.length > 0) {
      hooks.prepareCalls = async (calls, ctx) => {
        const prepared: ToolCall[] = [];
        for (const call of calls) {
          const { blocked, args } = await this.#beforeTool(before, call, ctx);
          this.#remember(`${ctx.turnId} ${call.id}`, blocked ?? null);
          prepared.push(args === undefined ? call : { ...call, arguments: JSON.stringify(args) });
        }
        return prepared;
      };
    }
    if (after.length > 0) hooks.afterToolCall = (input) => this.#afterTool(after, input);
    return hooks;
  }

  #remember(key: string, verdict: string | null): void {
    this.#verdicts.set(key, verdict);
    if (this.#verdicts.size > MAX_REMEMBERED_VERDICTS) this.#verdicts.delete(this.#verdicts.keys().next().value!);
  }

  /** Each plugin's beforeTool in turn: the first block wins; replaced arguments go to the next plugin. */
  async #beforeTool(plugins: Plugin[], call: ToolCall, ctx: InternalToolContext): Promise<{ blocked?: string; args?: unknown }> {
    let args: unknown;
    for (const plugin of plugins) {
      const info: ToolCallInfo = {
        tool: call.name,
        args: args === undefined ? parsedArgs(call.arguments) : args,
        chat: ctx.chat,
        requester: ctx.requester,
        turnId: ctx.turnId,
      };
      const outcome = await this.#run(plugin, 'beforeTool', 'the call is blocked', () => plugin.beforeTool!(info, this.#context(plugin)));
      if (!outcome.ok) return { blocked: `Not run: the ${plugin.name} plugin could not check this call (${errorText(outcome.error)}).` };
      const verdict = outcome.value;
      if (verdict && 'block' in verdict) return { blocked: `Not run: ${verdict.block}` };
      if (verdict && 'args' in verdict) args = verdict.args;
    }
    return args === undefined ? {} : { args };
  }

  async #afterTool(plugins: Plugin[], input: AfterToolCall): Promise<ToolOutput> {
    let result: ToolOutput = { content: input.result.content, isError: input.result.isError ?? false };
    for (const plugin of plugins) {
      const call = {
        tool: input.call.name,
        args: input.args,
        chat: input.ctx.chat,
        requester: input.ctx.requester,
        turnId: input.ctx.turnId,
        result: { content: result.content, isError: result.isError ?? false, durationMs: input.durationMs },
      };
      const outcome = await this.#run(plugin, 'afterTool', 'the result is kept', () => plugin.afterTool!(call, this.#context(plugin)));
      if (outcome.ok && outcome.value && typeof outcome.value.content === 'string') {
        result = { content: outcome.value.content, isError: outcome.value.isError ?? result.isError ?? false };
      }
    }
    return result;
  }

  /** `client` with the plugins' beforeModelRequest and afterModelResponse observing each request. */
  observeModel(client: LlmClient): LlmClient {
    if (!this.#plugins.some((plugin) => plugin.beforeModelRequest || plugin.afterModelResponse)) return client;
    return {
      get model() {
        return client.model;
      },
      complete: async (request, options) => {
        const model = client.model;
        this.#observe('beforeModelRequest', (plugin, ctx) =>
          plugin.beforeModelRequest!({ model, messages: request.messages, tools: (request.tools ?? []).map((tool) => tool.name) }, ctx),
        );
        const started = performance.now();
        try {
          const completion = await client.complete(request, options);
          const durationMs = performance.now() - started;
          this.#observe('afterModelResponse', (plugin, ctx) =>
            plugin.afterModelResponse!({ model, ok: true, completion, durationMs }, ctx),
          );
          return completion;
        } catch (error) {
          const durationMs = performance.now() - started;
          this.#observe('afterModelResponse', (plugin, ctx) =>
            plugin.afterModelResponse!({ model, ok: false, error: errorText(error), durationMs }, ctx),
          );
          throw error;
        }
      },
    };
  }

  turnEnded(turn: TurnEndInfo): void {
    this.#observe('onTurnEnd', (plugin, ctx) => plugin.onTurnEnd!(turn, ctx));
  }

  /** The plugins' commands, as entries of the command registry. */
  commands(): CommandInfo[] {
    return pluginCommands(this.#plugins);
  }

  hasCommand(name: string): boolean {
    return this.#plugins.some((plugin) => plugin.commands?.some((command) => command.name === name));
  }

  /** Runs a plugin's command: its answer, or undefined for none. Throws when the command failed or timed out. */
  async runCommand(input: PluginCommandInput): Promise<string | undefined> {
    for (const plugin of this.#plugins) {
      const command = plugin.commands?.find((c) => c.name === input.name);
      if (!command) continue;
      const ctx = {
        chat: input.chat,
        sender: input.sender,
        logger: this.#context(plugin).logger,
        memory: sessionMemory(this.#memory, input.sessionId),
      };
      const outcome = await this.#run(plugin, `/${command.name}`, 'the chat is told', () => command.run(input.args, ctx));
      if (!outcome.ok) throw outcome.error;
      return typeof outcome.value === 'string' && outcome.value.trim() ? outcome.value : undefined;
    }
    return undefined;
  }
}

/** The plugins' commands, as entries of the command registry (menus, slash commands, /help). */
export function pluginCommands(plugins: readonly Plugin[]): CommandInfo[] {
  return plugins.flatMap((plugin) =>
    (plugin.commands ?? []).map((command) => ({
      name: command.name,
      description: command.description,
      arguments: command.argument
        ? [{ name: command.argument.name, required: command.argument.required ?? false, description: command.argument.description }]
        : [],
      ...(command.argument ? { args: command.argument.required ? `<${command.argument.name}>` : `[${command.argument.name}]` } : {}),
      control: true,
      ephemeral: false,
    })),
  );
}
