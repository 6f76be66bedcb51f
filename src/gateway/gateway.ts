// The gateway: every adapter's inbound messages and button presses come here. It wires the parts
// that do the work: routing (trigger policy, dedup, mailbox), chat commands, button presses,
// session scheduling (one turn at a time per session) and the recovery sweep.
import type { Agent, TurnOutcome } from '../agent/agent.ts';
import type { Wakeups } from '../cluster/wakeups.ts';
import type { Action, ChannelAdapter, ChatRef, ConversationEntry, Inbound, InboundSink, InteractionReply } from '../core/types.ts';
import type { LocaleSetting } from '../core/i18n/index.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import { handleAction } from './actions.ts';
import { ChatCommands } from './commands.ts';
import { ChatLocales } from './locales.ts';
import { ModelCommand } from './model-command.ts';
import { Limits } from './limits.ts';
import { storedConversation } from './conversation.ts';
import { thisProcess } from './lease-owner.ts';
import { Output } from './output.ts';
import type { ApprovalHandler, GatewayPlugins, MessageMedia, ModelChoices } from './ports.ts';
import { Recovery } from './recovery.ts';
import { Router } from './routing.ts';
import type { SessionScheduler } from './scheduler.ts';
import type { LimitSettings } from '../config/config.ts';
import type { GroupSessionMode } from './session-key.ts';
import { SessionRunner } from './sessions.ts';

export interface GatewayOptions {
  store: Store;
  /** Undefined when no model is configured: the bot then explains how to configure one. */
  agent?: Agent;
  adapters: ChannelAdapter[];
  scheduler: SessionScheduler;
  log: Logger;
  botName: string;
  groupSession: GroupSessionMode;
  /** PARLEY_LOCALE: the language of the bot's own texts, or `auto` (default). */
  locale?: LocaleSetting;
  approvals?: ApprovalHandler;
  /** A project's plugins (parley.config): onMessage hooks and chat commands. */
  plugins?: GatewayPlugins;
  wakeups?: Wakeups;
  /** Per person and per chat limits, and who is exempt from them ("channel:userId"). */
  limits?: { settings: LimitSettings; admins: readonly string[] };
  /** Reads attachments (src/media); without it they are described to the model, never read. */
  media?: MessageMedia;
  /** /model: the configured models and who may switch a chat's ("channel:userId"). */
  models?: { choices: ModelChoices; admins: readonly string[] };
  /**
   * A periodic sweep besides the wake-ups (tests with a fake clock); none by default. Also the
   * delay of the follow-up sweep after work (5 s by default).
   */
  sweepIntervalMs?: number;
}

export class Gateway implements InboundSink {
  readonly #o: GatewayOptions;
  readonly #adapters: Map<string, ChannelAdapter>;
  readonly #sessions: SessionRunner;
  readonly #router: Router;
  readonly #recovery: Recovery;
  readonly #limits: Limits | undefined;
  readonly #locales: ChatLocales;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: GatewayOptions) {
    this.#o = options;
    this.#adapters = new Map(options.adapters.map((a) => [a.id, a]));
    const { store, log, scheduler } = options;
    const approvals = options.approvals;
    this.#locales = new ChatLocales(options.locale ?? 'auto');
    const output = new Output({ store, adapters: this.#adapters, log, prompts: approvals?.prompts, owner: scheduler.owner });
    const media = options.media;
    this.#sessions = new SessionRunner({ store, agent: options.agent, scheduler, output, log, approvals, ...(media ? { media } : {}) });
    const commands = new ChatCommands({
      store,
      sessions: this.#sessions,
      botName: options.botName,
      mentionName: (channel) => this.#adapters.get(channel)?.mentionName?.(),
      approvals,
      ...(media ? { media } : {}),
      ...(options.models
        ? { models: new ModelCommand({ models: options.models.choices, chatModels: store.chatModels, admins: options.models.admins }) }
        : {}),
      ...(options.plugins ? { plugins: options.plugins } : {}),
      log,
    });
    const limits = options.limits ? new Limits({ store, output, log, ...options.limits }) : undefined;
    this.#limits = limits;
    this.#router = new Router({
      ...(limits ? { limits } : {}),
      store,
      log,
      groupSession: options.groupSession,
      ...(options.plugins ? { plugins: options.plugins } : {}),
      hasModel: options.agent !== undefined,
      commands,
      sessions: this.#sessions,
      output,
      locales: this.#locales,
      usualLocale: (channel) => this.#adapters.get(channel)?.usualLocale,
      ...(media ? { media } : {}),
    });
    this.#recovery = new Recovery({
      store,
      scheduler,
      sessions: this.#sessions,
      output,
      self: thisProcess(scheduler.owner),
      log,
      approvals,
      wakeups: options.wakeups,
      followUpMs: options.sweepIntervalMs,
    });
  }

  get adapters(): ChannelAdapter[] {
    return [...this.#adapters.values()];
  }

  async start(): Promise<void> {
    for (const adapter of this.#adapters.values()) await adapter.start(this);
    await this.#recovery.start();
    const every = this.#o.sweepIntervalMs;
    if (every !== undefined) this.#sweeper = setInterval(() => void this.sweep(), every);
  }

  /** Stop taking new work, let running turns reach a checkpoint, stop the adapters. */
  async stop(graceMs = 3_000): Promise<void> {
    clearInterval(this.#sweeper);
    this.#recovery.stop();
    await this.#o.scheduler.stop(graceMs);
    await this.#recovery.idle();
    for (const adapter of this.#adapters.values()) {
      await adapter.stop().catch((error: unknown) => this.#o.log.warn({ err: error }, `stopping ${adapter.id} failed`));
    }
  }

  onMessage(inbound: Inbound, interaction?: InteractionReply): Promise<void> {
    return this.#router.onMessage(inbound, interaction);
  }

  onAction(action: Action): Promise<void> {
    return handleAction(action, this.#o.approvals, this.#o.log, (press) =>
      this.#locales.forPress(press, this.#adapters.get(press.channel)?.usualLocale),
    );
  }

  conversation(chat: ChatRef, viewer: { id: string }, limit: number): Promise<ConversationEntry[]> {
    const { store, groupSession, botName, approvals } = this.#o;
    return storedConversation({ store, groupSession, botName, ...(approvals ? { prompts: approvals.prompts } : {}) }, chat, viewer, limit);
  }

  /** Stops the session's unfinished turn, wherever it runs. True when there was one. */
  stopSession(sessionId: string, by: string): Promise<boolean> {
    return this.#sessions.stopSession(sessionId, by);
  }

  /** Make sure someone works through the session's mailbox (this process if it can). */
  kick(sessionId: string): void {
    this.#sessions.kick(sessionId);
  }

  /** Continues a suspended turn once its approvals are decided. Safe from any process, any number of times. */
  resume(turnId: string): Promise<TurnOutcome | undefined> {
    return this.#sessions.resume(turnId);
  }

  /** Maintenance (see recovery.ts); also run once at start (work left over by a stopped process). */
  async sweep(): Promise<void> {
    await this.#recovery.sweep();
    await this.#limits?.prune().catch((error: unknown) => this.#o.log.warn({ err: error }, 'could not prune old rate counts'));
  }
}
