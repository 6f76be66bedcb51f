// Chat commands: /help, /stop and /reset are answered here; /model goes to the model command,
// /approve, /deny and /revoke to the approvals handler, a plugin's commands to the plugins.
import { COMMANDS, commandList, commandNamed, type ParsedCommand } from '../core/commands.ts';
import { DEFAULT_LOCALE, t } from '../core/i18n/index.ts';
import { markdownText } from '../core/markdown-text.ts';
import type { Inbound } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { SessionRecord } from '../store/types.ts';
import type { ModelCommand } from './model-command.ts';
import type { ApprovalHandler, GatewayPlugins } from './ports.ts';
import { chatOf } from './session-key.ts';
import type { SessionRunner } from './sessions.ts';

export interface ChatCommandsOptions {
  store: Store;
  sessions: SessionRunner;
  botName: string;
  /** The bot's @name on a channel (its platform username), when the channel tells. */
  mentionName?: (channel: string) => string | undefined;
  approvals?: ApprovalHandler;
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
    switch (command.name) {
      case 'start':
      case 'help':
        return helpText(this.#o.botName, inbound.chatType, this.#o.mentionName?.(inbound.channel), this.#o.plugins);
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
        if (this.#o.plugins?.hasCommand(command.name)) return this.#runPluginCommand(command, inbound, session);
        if (!this.#o.approvals) return 'Approvals are not enabled here.';
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
      return t(DEFAULT_LOCALE, 'plugins.commandFailed', { command: command.name });
    }
  }
}

/** In a group: how to address the bot (by its platform @username where the channel tells it; else by name). */
function helpText(botName: string, chatType: 'direct' | 'group', mention: string | undefined, plugins?: GatewayPlugins): string {
  const name = markdownText(botName);
  const how =
    chatType === 'group'
      ? `In a group I only see messages addressed to me: mention me (@${markdownText(mention ?? botName)}), reply to one of my messages, or use a command.`
      : 'Just write to me.';
  return `I am ${name}. ${how}\n\n${commandList([...COMMANDS, ...(plugins?.commands() ?? [])])}`;
}
