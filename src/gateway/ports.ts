// What the gateway needs from the approvals side and from a project's plugins; src/app.ts plugs
// the ApprovalService and the PluginHost (src/framework) in.
import type { CommandInfo, ParsedCommand } from '../core/commands.ts';
import type { Action, ChatRef, Inbound } from '../core/types.ts';
import type { SessionRecord } from '../store/types.ts';
import type { ApprovalPromptSink } from './renderer.ts';

export interface ApprovalHandler {
  readonly prompts: ApprovalPromptSink;
  /** Handles a button press; false when the payload is not an approval token. */
  handleAction(action: Action): Promise<boolean>;
  /** /approve, /deny, /revoke: returns the reply text. */
  handleCommand(command: ParsedCommand, inbound: Inbound, session: SessionRecord): Promise<string>;
  /** A suspended turn was stopped: its pending approvals end as denied and prompts are updated. */
  turnStopped(turnId: string, by: string): Promise<void>;
  /** Periodic work: expire due approvals. */
  sweep(): Promise<void>;
  /** A turn decided elsewhere (the command line, a process that went away) is resumed: show its prompts' outcomes. */
  showOutcomes?(turnId: string): Promise<void>;
}

/** What the gateway needs from the media intake (src/media); without one, attachments are described, not read. */
export interface MessageMedia {
  /** The reply to a message of attachments alone, none of which can be read now; undefined otherwise. */
  unreadableReply(inbound: Inbound): string | undefined;
  /** The user message's content for a message with nothing to fetch: its text and a note per attachment. */
  describe(inbound: Inbound): string;
  /** Whether the message has attachments to fetch before its turn (it then waits in the mailbox, not started at once). */
  needsPreparing(inbound: Inbound): boolean;
  /** The user message's content with its attachments read, and short lines for the chat about those that could not be. */
  prepare(inbound: Inbound, context: { sessionId: string; signal?: AbortSignal }): Promise<{ content: string; notices: string[] }>;
  /** The session was reset: its cached files go. */
  forgetSession(sessionId: string): Promise<void>;
}

/** The configured models as /model sees them (src/llm/model-router.ts provides it). */
export interface ModelChoices {
  readonly names: string[];
  named(
    name: string,
  ): { name: string; config: { model: string }; capabilities: { tools: boolean; vision: boolean; reasoning: boolean } } | undefined;
  /** The model the chat uses when nothing fails, and why. */
  chosen(channel: string, chatId: string): Promise<{ name: string; by: 'chat' | 'channel' | 'default' } | undefined>;
  /** The fallback chain after the chosen model (names). */
  readonly fallback: readonly string[];
}

/** A project's plugins (parley.config): their onMessage hooks and their chat commands. */
export interface GatewayPlugins {
  /** Whether an addressed inbound message goes on (no plugin dropped it). */
  admit(inbound: Inbound): Promise<boolean>;
  /** Their commands, for /help. */
  commands(): CommandInfo[];
  hasCommand(name: string): boolean;
  /** The command's answer (undefined: none); throws when it failed. */
  runCommand(input: {
    name: string;
    args: string;
    chat: ChatRef;
    sender: { id: string; displayName: string };
    sessionId: string;
  }): Promise<string | undefined>;
}
