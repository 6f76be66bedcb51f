// Chat commands: /help, /stop and /reset are answered here; /model goes to the model command,
// /approve, /deny and /revoke to the approvals handler, a plugin's commands to the plugins.
import { COMMANDS, commandList, commandNamed, type ParsedCommand } from '../core/commands.ts';
import { type Locale, localeOrDefault, t } from '../core/i18n/index.ts';
import { markdownText } from '../core/markdown-text.ts';
import type { Inbound } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { SessionRecord } from '../store/types.ts';
import type { ModelCommand } from './model-command.ts';
import type { ApprovalHandler, GatewayPlugins, MessageMedia } from './ports.ts';
import { chatOf } from './session-key.ts';
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
  models?: ModelCommand;
  /** A project's plugins: their commands are answered here too. */
  plugins?: GatewayPlugins;
  log?: Logger;
}

export class ChatCommands {
  readonly #o: ChatCommandsOptions;

  constructor(options: ChatCommandsOptions) {
    this.#o = options;
  }

  /** Commands answered without a model turn. */
  isControl(command: ParsedCommand | undefined): command is ParsedCommand {
    return command !== undefined && (commandNamed(command.name)?.control === true || this.#o.plugins?.hasCommand(command.name) === true);
  }

  /** Runs a control command; returns the reply text (undefined: nothing to say). */
  async run(command: ParsedCommand, inbound: Inbound, session: SessionRecord): Promise<string | undefined> {
    const who = inbound.sender.displayName || inbound.sender.id;
    const locale = localeOrDefault(inbound.locale);
    switch (command.name) {
      case 'start':
      case 'help':
        return helpText(locale, this.#o.botName, inbound.chatType, this.#o.mentionName?.(inbound.channel), this.#o.plugins);
      case 'stop':
        return (await this.#o.sessions.stopSession(session.id, who)) ? undefined : t(locale, 'reply.nothingToStop');
      case 'reset': {
        await this.#o.sessions.stopSession(session.id, who);
        await this.#o.store.sessions.reset(session.id);
        await this.#o.media?.forgetSession(session.id);
        return t(locale, 'reply.reset');
      }
      case 'model':
        return this.#o.models ? this.#o.models.run(command.args, inbound) : t(locale, 'models.none');
      default:
        if (this.#o.plugins?.hasCommand(command.name)) return this.#runPluginCommand(command, inbound, session);
        if (!this.#o.approvals) return t(locale, 'reply.approvalsOff');
        return this.#o.approvals.handleCommand(command, inbound, session);
    }
  }

  async #runPluginCommand(command: ParsedCommand, inbound: Inbound, session: SessionRecord): Promise<string | undefined> {
    try {
      return await this.#o.plugins!.runCommand({
        name: command.name,
        args: command.args,
        chat: chatOf(inbound),
        sender: { id: inbound.sender.id, displayName: inbound.sender.displayName },
        sessionId: session.id,
      });
    } catch (error) {
      this.#o.log?.warn({ err: error, command: command.name }, `the /${command.name} command failed`);
      return t(localeOrDefault(inbound.locale), 'plugins.commandFailed', { command: command.name });
    }
  }
}

/** In a group: how to address the bot (by its platform @username where the channel tells it; else by name). */
function helpText(
  locale: Locale,
  botName: string,
  chatType: 'direct' | 'group',
  mention: string | undefined,
  plugins?: GatewayPlugins,
): string {
  const name = markdownText(botName);
  const how =
    chatType === 'group'
      ? t(locale, 'help.group', { name, mention: markdownText(mention ?? botName) })
      : t(locale, 'help.direct', { name });
  return `${how}\n\n${commandList(locale, [...COMMANDS, ...(plugins?.commands() ?? [])])}`;
}
