// Inbound messages: validation, the trigger policy (a DM always; in a group a mention, a reply to
// the bot or a /command), the session, the persisted de-duplication record, and then either a
// chat command or the session's mailbox. A command that came as a platform interaction (a Discord
// slash command) is answered through it: privately when it concerns only the caller, else
// acknowledged and answered in the chat.
import { unreadableReply } from '../core/attachments.ts';
import { commandNamed, parseCommand } from '../core/commands.ts';
import { localeOrDefault, t } from '../core/i18n/index.ts';
import { type ChatRef, InboundSchema, type Inbound, type InteractionReply } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { TurnStatus } from '../store/types.ts';
import type { ChatCommands } from './commands.ts';
import type { Limits } from './limits.ts';
import type { ChatLocales } from './locales.ts';
import type { Output } from './output.ts';
import type { GatewayPlugins } from './ports.ts';
import { chatOf, sessionSpecFor, type GroupSessionMode } from './session-key.ts';
import type { SessionRunner } from './sessions.ts';
import type { MessageMedia } from './ports.ts';

export interface RouterOptions {
  store: Store;
  log: Logger;
  groupSession: GroupSessionMode;
  /** False when no model is configured: the bot then explains how to configure one. */
  hasModel: boolean;
  commands: ChatCommands;
  sessions: SessionRunner;
  output: Output;
  /** Per person and per chat limits (none: every addressed message goes on). */
  limits?: Limits;
  /** The language of the bot's texts per message. */
  locales: ChatLocales;
  /** A channel's usual language (ChannelAdapter.usualLocale), if it has one. */
  usualLocale?: (channel: string) => string | undefined;
  /** Reads attachments; without it they are described to the model, never read. */
  media?: MessageMedia;
  /** A project's plugins: their onMessage hooks see each addressed message first, and may drop it. */
  plugins?: Pick<GatewayPlugins, 'admit'>;
}

export class Router {
  readonly #o: RouterOptions;

  constructor(options: RouterOptions) {
    this.#o = options;
  }

  /** `interaction`: the message is a platform interaction (a slash command), answered through it. */
  async onMessage(raw: Inbound, interaction?: InteractionReply): Promise<void> {
    const { store, log, output } = this.#o;
    const parsed = InboundSchema.safeParse(raw);
    if (!parsed.success) {
      log.warn({ issues: parsed.error.issues }, 'dropped a malformed inbound message from an adapter');
      return;
    }
    if (parsed.data.sender.isBot) return;
    // From here on the message carries the locale resolved for it (its turn keeps it, see originOf).
    let inbound: Inbound = { ...parsed.data, locale: this.#o.locales.forMessage(parsed.data, this.#o.usualLocale?.(parsed.data.channel)) };
    const locale = localeOrDefault(inbound.locale);
    const command = parseCommand(inbound.text);
    const addressed = inbound.chatType === 'direct' || inbound.mentionsBot || inbound.repliesToBot || command !== undefined;
    if (!addressed) {
      log.debug({ channel: inbound.channel, chatId: inbound.chatId }, 'ignored: group message not addressed to the bot');
      return;
    }
    if (this.#o.plugins && !(await this.#o.plugins.admit(inbound))) return;
    const spec = sessionSpecFor(inbound, this.#o.groupSession);
    const chat = chatOf(inbound);
    const { limits } = this.#o;
    if (limits) {
      if (!(await limits.admitMessage(inbound, chat))) return;
      inbound = await limits.cut(inbound, chat);
    }
    let firstInChat = false;
    if (this.#o.hasModel && !this.#o.commands.isControl(command) && !this.#unreadable(inbound)) {
      if (limits && !(await limits.admitTokens(inbound, chat))) return;
      // The common case, a message for the model in an idle chat that has its session: recorded,
      // its turn started and the session leased in one write. A message with attachments to read
      // goes to the mailbox instead: the session's worker reads them before the turn starts.
      const started = this.#o.media?.needsPreparing(inbound) ? 'not-now' : await this.#o.sessions.startNow(spec.key, inbound);
      if (started === 'duplicate') return this.#duplicate(inbound);
      if (started === 'started') return;
      if (limits && !(await limits.admitQueued(inbound, chat, spec.key))) return;
      // Otherwise recorded and queued by one statement, which also reads the session's unfinished turn.
      const queued = await store.inbound.queueForKey(inbound, spec.key);
      if (queued === 'duplicate') return this.#duplicate(inbound);
      if (queued !== 'no-session') return this.#queued(chat, inbound, queued.sessionId, queued.activeStatus);
      firstInChat = true;
    }
    // One read for the session and its unfinished turn; a new chat creates the session (no turn yet).
    const known = firstInChat ? undefined : await store.turnReads.sessionByKey(spec.key);
    const session = known?.session ?? (await store.sessions.ensure(spec));

    if (this.#o.commands.isControl(command)) {
      if (!(await store.inbound.record(inbound, session.id, 'done'))) return;
      if (interaction && commandNamed(command.name)?.ephemeral) {
        // It concerns only the caller: the answer is the acknowledgement, shown to them alone.
        await interaction.ack((await this.#o.commands.run(command, inbound, session)) ?? t(locale, 'general.done'));
        return;
      }
      await interaction?.ack();
      const reply = await this.#o.commands.run(command, inbound, session);
      if (reply) await output.reply(chat, reply, inbound);
      // Its effect shows elsewhere (/stop ends the answer in place): the caller still gets words.
      else await interaction?.whisper(t(locale, 'general.doneCommand', { command: command.name }));
      return;
    }
    // Only attachments, none of which the bot can read: say so, no model turn needed.
    const unreadable = this.#unreadable(inbound);
    if (unreadable) {
      if (await store.inbound.record(inbound, session.id, 'done')) await output.reply(chat, unreadable, inbound);
      return;
    }
    if (!this.#o.hasModel) {
      if (await store.inbound.record(inbound, session.id, 'done')) await output.reply(chat, t(locale, 'chat.noModel'), inbound);
      return;
    }
    if (!(await store.inbound.record(inbound, session.id, 'queued'))) return this.#duplicate(inbound);
    await this.#queued(chat, inbound, session.id, known?.active?.status);
  }

  #unreadable(inbound: Inbound): string | undefined {
    return this.#o.media ? this.#o.media.unreadableReply(inbound) : unreadableReply(inbound);
  }

  #duplicate(inbound: Inbound): void {
    this.#o.log.debug({ channel: inbound.channel, eventId: inbound.eventId }, 'duplicate delivery ignored');
  }

  /** `inbound` waits in the session's mailbox: say so when a decision holds it back, and get it worked on. */
  async #queued(chat: ChatRef, inbound: Inbound, sessionId: string, activeStatus: TurnStatus | undefined): Promise<void> {
    if (activeStatus === 'awaiting_approval') {
      await this.#o.output.reply(chat, t(localeOrDefault(inbound.locale), 'chat.waitingForApproval'), inbound);
    }
    this.#o.sessions.kick(sessionId);
  }
}
