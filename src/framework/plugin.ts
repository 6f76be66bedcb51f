// A plugin written in a user's project: `definePlugin({...})` from 'parley'. Hooks around messages,
// tool calls and model requests, text added to the model's context, and chat commands. Every hook is
// bounded (PluginOptions.hookTimeoutMs) and a failing one is logged; see src/framework/plugin-host.ts
// for what each failure means.
import type { Completion, CompletionRequest } from '../llm/types.ts';
import type { ChatRef, Inbound } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { Person, TurnStatus, Usage } from '../store/types.ts';
import type { SessionMemory } from './tool.ts';

/** A message as the platform delivered it, before it becomes a turn. */
export type IncomingMessage = Inbound;

/** Given to every hook. */
export interface HookContext {
  /** Parley's logger (pino), tagged with the plugin's name. */
  logger: Logger;
}

/** `onMessage`'s answer: `{ drop: true }` and the message is ignored (never answered, never stored). */
export type MessageVerdict = undefined | { drop: true };

/** Text for the model's context this turn; nothing (undefined or '') adds nothing. */
export type ContextSectionResult = string | undefined;

/** What a context section is given. */
export interface ContextSectionInput {
  chat: ChatRef;
  requester: Person;
  /** The text of the turn's (last) user message. */
  userText: string;
  signal: AbortSignal;
  logger: Logger;
}

/**
 * Text added to the model's context each turn. It is made once, in the turn's first request, and shown
 * with that turn's user message in every later request of the conversation, so that the system prompt
 * and the history before it stay the same from request to request (the model server's prompt cache).
 */
export type ContextSection = (input: ContextSectionInput) => Promise<ContextSectionResult> | ContextSectionResult;

/** A tool call as a hook sees it. */
export interface ToolCallInfo {
  /** The tool's name. */
  tool: string;
  /** The call's arguments as the model sent them (parsed JSON; not yet checked against the tool's schema). */
  args: unknown;
  chat: ChatRef;
  requester: Person;
  turnId: string;
}

/**
 * `beforeTool`'s answer: nothing lets the call go on (to the approval gate, then to run);
 * `{ block: reason }` answers it with `reason` as an error and never runs it; `{ args }` replaces
 * its arguments (checked against the tool's schema like the model's own).
 */
export type BeforeToolVerdict = undefined | { block: string } | { args: unknown };

/** A tool call's result as `afterTool` sees it. */
export interface ToolCallResult {
  content: string;
  isError: boolean;
  durationMs: number;
}

/** `afterTool`'s answer: nothing keeps the result; an object replaces what the model reads. */
export type AfterToolVerdict = undefined | { content: string; isError?: boolean };

/** A request about to go to the model. */
export interface ModelRequestInfo {
  model: string;
  messages: CompletionRequest['messages'];
  /** Names of the tools offered. */
  tools: string[];
}

/** What the model answered, or how the request failed. */
export type ModelResponseInfo =
  | { model: string; ok: true; completion: Completion; durationMs: number }
  | { model: string; ok: false; error: string; durationMs: number };

/** A turn that ended (answered, failed or stopped). */
export interface TurnEndInfo {
  turnId: string;
  sessionId: string;
  status: Exclude<TurnStatus, 'running' | 'awaiting_approval'>;
  /** The answer, or the reason the turn did not complete. */
  text: string;
  usage: Usage;
  rounds: number;
}

/** What a command's `run` is given. */
export interface CommandContext {
  chat: ChatRef;
  /** Who typed the command. */
  sender: Person;
  /** The conversation's memory (the same session memory tools see). */
  memory: SessionMemory;
  logger: Logger;
}

/** A chat command (`/weather Paris`): shown in Telegram's menu, as a Discord slash command, in /help. */
export interface CommandOptions {
  /** 1-32 lower-case letters, digits or `_`; not one of Parley's own (help, stop, reset, approve, deny, revoke, start). */
  name: string;
  /** One line for menus and /help (at most 100 characters: Discord's limit). */
  description: string;
  /** The argument, if any, for menus: its name and whether it is required. */
  argument?: { name: string; description: string; required?: boolean };
  /** Answers the command: the text is posted in the chat (nothing: no answer). `args` is the text after the name. */
  run(args: string, ctx: CommandContext): Promise<string | undefined> | string | undefined;
}

/** The argument of `definePlugin`: only `name` is required. */
export interface PluginOptions {
  /** Names the plugin in logs. */
  name: string;
  /** Bound for each of this plugin's hooks, in ms (default 5000). */
  hookTimeoutMs?: number;
  /** Sees every message addressed to the bot before it becomes a turn; may drop it. Fails open. */
  onMessage?(message: IncomingMessage, ctx: HookContext): Promise<MessageVerdict> | MessageVerdict;
  contextSections?: ContextSection[];
  /** Before each tool call: block it, replace its arguments, or just look. Fails closed (the call is blocked). */
  beforeTool?(call: ToolCallInfo, ctx: HookContext): Promise<BeforeToolVerdict> | BeforeToolVerdict;
  /** After each tool call ran: replace its result or just look. Fails open (the result is kept). */
  afterTool?(call: ToolCallInfo & { result: ToolCallResult }, ctx: HookContext): Promise<AfterToolVerdict> | AfterToolVerdict;
  /** Observes each request to the model (logging, metrics). */
  beforeModelRequest?(request: ModelRequestInfo, ctx: HookContext): Promise<void> | void;
  /** Observes each answer of the model, or its failure. */
  afterModelResponse?(response: ModelResponseInfo, ctx: HookContext): Promise<void> | void;
  /** Observes each turn's end. */
  onTurnEnd?(turn: TurnEndInfo, ctx: HookContext): Promise<void> | void;
  commands?: CommandOptions[];
}

/** A plugin made by `definePlugin`: put it in `defineConfig({ plugins: [...] })`. */
export interface Plugin extends PluginOptions {
  readonly kind: 'parley.plugin';
}

const COMMAND_NAME = /^[a-z0-9_]{1,32}$/;

/** Declares a plugin. Throws at once on a command name no platform would take. */
export function definePlugin(options: PluginOptions): Plugin {
  if (!options.name?.trim()) throw new Error('definePlugin: a plugin needs a name');
  for (const command of options.commands ?? []) {
    if (!COMMAND_NAME.test(command.name)) {
      throw new Error(`definePlugin(${options.name}): command name "${command.name}" must be 1-32 lower-case letters, digits or _`);
    }
    if (!command.description?.trim() || command.description.length > 100) {
      throw new Error(`definePlugin(${options.name}): command /${command.name} needs a description of 1-100 characters`);
    }
  }
  return { ...options, kind: 'parley.plugin' };
}
