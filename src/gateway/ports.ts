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
