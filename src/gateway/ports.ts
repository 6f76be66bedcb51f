// What the gateway needs from the approvals side; src/app.ts plugs the ApprovalService in.
import type { ParsedCommand } from '../core/commands.ts';
import type { Action, Inbound } from '../core/types.ts';
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
