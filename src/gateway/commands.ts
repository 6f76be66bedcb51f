// Chat commands: /help, /stop and /reset are answered here; /approve, /deny and /revoke go to the
// approvals handler.
import { commandList, commandNamed, type ParsedCommand } from '../core/commands.ts';
import { type Locale, localeOrDefault, t } from '../core/i18n/index.ts';
import { markdownText } from '../core/markdown-text.ts';
import type { Inbound } from '../core/types.ts';
import type { Store } from '../store/store.ts';
import type { SessionRecord } from '../store/types.ts';
import type { ApprovalHandler, MessageMedia } from './ports.ts';
import type { SessionRunner } from './sessions.ts';

export interface ChatCommandsOptions {
  store: Store;
  sessions: SessionRunner;
  botName: string;
  /** The bot's @name on a channel (its platform username), when the channel tells. */
  mentionName?: (channel: string) => string | undefined;
  approvals?: ApprovalHandler;
  /** /reset deletes the session's cached files through it. */
  media?: MessageMedia;
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
    const locale = localeOrDefault(inbound.locale);
    switch (command.name) {
      case 'start':
      case 'help':
        return helpText(locale, this.#o.botName, inbound.chatType, this.#o.mentionName?.(inbound.channel));
      case 'stop':
        return (await this.#o.sessions.stopSession(session.id, who)) ? undefined : t(locale, 'reply.nothingToStop');
      case 'reset': {
        await this.#o.sessions.stopSession(session.id, who);
        await this.#o.store.sessions.reset(session.id);
        await this.#o.media?.forgetSession(session.id);
        return t(locale, 'reply.reset');
      }
      default:
        if (!this.#o.approvals) return t(locale, 'reply.approvalsOff');
        return this.#o.approvals.handleCommand(command, inbound, session);
    }
  }
}

/** In a group: how to address the bot (by its platform @username where the channel tells it; else by name). */
function helpText(locale: Locale, botName: string, chatType: 'direct' | 'group', mention: string | undefined): string {
  const name = markdownText(botName);
  const how =
    chatType === 'group'
      ? t(locale, 'help.group', { name, mention: markdownText(mention ?? botName) })
      : t(locale, 'help.direct', { name });
  return `${how}\n\n${commandList(locale)}`;
}
