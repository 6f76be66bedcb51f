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
