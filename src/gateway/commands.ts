// Chat commands: /help, /stop and /reset are answered here; /model goes to the model command,
// /approve, /deny and /revoke to the approvals handler.
import { DEFAULT_LOCALE, t } from '../core/i18n/index.ts';
import { commandList, commandNamed, type ParsedCommand } from '../core/commands.ts';
import { markdownText } from '../core/markdown-text.ts';
import type { Inbound } from '../core/types.ts';
import type { Store } from '../store/store.ts';
import type { SessionRecord } from '../store/types.ts';
import type { ModelCommand } from './model-command.ts';
import type { ApprovalHandler } from './ports.ts';
import type { SessionRunner } from './sessions.ts';

export interface ChatCommandsOptions {
  store: Store;
  sessions: SessionRunner;
  botName: string;
  /** The bot's @name on a channel (its platform username), when the channel tells. */
  mentionName?: (channel: string) => string | undefined;
  approvals?: ApprovalHandler;
  models?: ModelCommand;
}

export class ChatCommands {
  readonly #o: ChatCommandsOptions;

  constructor(options: ChatCommandsOptions) {
    this.#o = options;
  }

  /** Commands answered without a model turn. */
  isControl(command: ParsedCommand | undefined): command is ParsedCommand {
    return command !== undefined && commandNamed(command.name)?.control === true;
  }

  /** Runs a control command; returns the reply text (undefined: nothing to say). */
  async run(command: ParsedCommand, inbound: Inbound, session: SessionRecord): Promise<string | undefined> {
    const who = inbound.sender.displayName || inbound.sender.id;
    switch (command.name) {
      case 'start':
      case 'help':
        return helpText(this.#o.botName, inbound.chatType, this.#o.mentionName?.(inbound.channel));
      case 'stop':
        return (await this.#o.sessions.stopSession(session.id, who)) ? undefined : 'Nothing to stop.';
      case 'reset': {
        await this.#o.sessions.stopSession(session.id, who);
        await this.#o.store.sessions.reset(session.id);
        return 'Started a fresh conversation. (Facts I was asked to remember are kept; ask me to forget them if needed.)';
      }
      case 'model':
        return this.#o.models ? this.#o.models.run(command.args, inbound) : t(DEFAULT_LOCALE, 'models.none');
      default:
        if (!this.#o.approvals) return 'Approvals are not enabled here.';
        return this.#o.approvals.handleCommand(command, inbound, session);
    }
  }
}

/** In a group: how to address the bot (by its platform @username where the channel tells it; else by name). */
function helpText(botName: string, chatType: 'direct' | 'group', mention: string | undefined): string {
  const name = markdownText(botName);
  const how =
    chatType === 'group'
      ? `In a group I only see messages addressed to me: mention me (@${markdownText(mention ?? botName)}), reply to one of my messages, or use a command.`
      : 'Just write to me.';
  return `I am ${name}. ${how}\n\n${commandList()}`;
}
