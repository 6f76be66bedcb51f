// The Discord channel: a discord.js Client on the gateway (guild channels, threads, DMs) handing
// messages, button clicks and slash commands to the core, and replying through DiscordOutbound.
// Interactions are acknowledged first (deferUpdate / deferReply), so the 3 s deadline holds
// however long the core or REST take; what the core says to one clicker goes as an ephemeral
// follow-up.
import {
  Client,
  Events,
  GatewayIntentBits,
  MessageFlags,
  Partials,
  Routes,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type Message,
} from 'discord.js';
import { answerOnce } from '../../src/core/ack.ts';
import { COMMANDS } from '../../src/core/commands.ts';
import type { ChannelAdapter, ChannelCapabilities, ChatRef, CoreLogger, InboundSink, OutboundMessage, SentRef } from '../../src/core/types.ts';
import { EPHEMERAL_COMMANDS, slashCommandsOf } from './commands.ts';
import type { DiscordConfig } from './config.ts';
import { closeCodeMessage, DiscordStartError, safeErrorMessage } from './errors.ts';
import { classifyButton, classifyCommand, classifyMessage } from './inbound.ts';
import { DiscordOutbound } from './outbound.ts';
import { bodyOf, MAX_CONTENT } from './render.ts';

export interface DiscordAdapterOptions {
  config: DiscordConfig;
  log: CoreLogger;
  /** Channel name in session keys and admin ids (default "discord"). */
  id?: string;
  /** How long start() waits for READY (default 30 s). */
  startTimeoutMs?: number;
}

const START_TIMEOUT_MS = 30_000;

/** A slash command whose deferred reply is still waiting for the core's answer. */
interface PendingCommand {
  interaction: ChatInputCommandInteraction;
  chatId: string;
  threadId: string | undefined;
  answered: boolean;
}

export class DiscordAdapter implements ChannelAdapter {
  readonly id: string;
  readonly kind = 'discord';
  readonly capabilities: ChannelCapabilities;
  readonly client: Client;
  readonly #config: DiscordConfig;
  readonly #log: CoreLogger;
  readonly #startTimeoutMs: number;
  readonly #outbound: DiscordOutbound;
  readonly #pending = new Map<string, PendingCommand>();
  readonly #work = new Set<Promise<void>>();
  #sink: InboundSink | undefined;

  constructor(options: DiscordAdapterOptions) {
    this.id = options.id ?? 'discord';
    this.#config = options.config;
    this.#log = options.log;
    this.#startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
    this.capabilities = {
      maxTextLength: MAX_CONTENT,
      maxButtonPayload: 100,
      canEdit: true,
      canButtons: true,
      canEphemeral: true,
      hasThreads: true,
      hasTyping: true,
      editIntervalMs: { ...options.config.editIntervalMs },
    };
    this.client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
      partials: [Partials.Channel],
      rest: {
        api: options.config.apiRoot,
        // Called on every rate limit, anticipated or a 429; false = wait it out (discord.js's queue).
        rejectOnRateLimit: (info) => {
          this.#log.info(
            { route: info.route, method: info.method, global: info.global, waitMs: info.retryAfter },
            `Discord rate limit on ${info.method.toUpperCase()} ${info.route}: waiting ${Math.ceil(info.retryAfter)} ms`,
          );
          return false;
        },
      },
    });
    this.#outbound = new DiscordOutbound({ rest: this.client.rest, channel: this.id, token: options.config.token, log: options.log, goneRetryMs: 10 * 60_000 });
  }

  get botId(): string | undefined {
    return this.client.user?.id;
  }

  async start(sink: InboundSink): Promise<void> {
    this.#sink = sink;
    this.client.on(Events.MessageCreate, (message) => this.#track(this.#onMessage(message)));
    this.client.on(Events.InteractionCreate, (interaction) => this.#track(this.#onInteraction(interaction)));
    this.client.on(Events.ShardError, (error) => this.#log.warn({}, `Discord gateway error: ${safeErrorMessage(error, this.#config.token)}`));
    await this.#connect();
    await this.#registerCommands();
  }

  async #connect(): Promise<void> {
    const token = this.#config.token;
    let timer: NodeJS.Timeout | undefined;
    let onDisconnect: ((event: { code: number }) => void) | undefined;
    const failed = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DiscordStartError(`could not reach Discord at ${this.#config.apiRoot} within ${this.#startTimeoutMs / 1000} s`)), this.#startTimeoutMs);
      onDisconnect = ({ code }) => reject(new DiscordStartError(closeCodeMessage(code) ?? `the Discord gateway closed the connection (code ${code})`));
      this.client.once(Events.ShardDisconnect, onDisconnect);
    });
    const ready = new Promise<void>((resolve) => this.client.once(Events.ClientReady, () => resolve()));
    try {
      await Promise.race([this.client.login(token).then(() => ready), failed]);
    } catch (error) {
      await this.client.destroy().catch(() => {});
      if (error instanceof DiscordStartError) throw error;
      const text = safeErrorMessage(error, token);
      if (/token/i.test(text)) throw new DiscordStartError(`Discord rejected DISCORD_BOT_TOKEN (${text}): copy a fresh token from the Developer Portal (your application → Bot → Reset Token)`);
      throw new DiscordStartError(`could not connect to Discord at ${this.#config.apiRoot} (${text})`);
    } finally {
      clearTimeout(timer);
      if (onDisconnect) this.client.off(Events.ShardDisconnect, onDisconnect);
    }
    this.client.on(Events.ShardDisconnect, ({ code }) => this.#log.error({ code }, closeCodeMessage(code) ?? `the Discord gateway closed the connection for good (code ${code})`));
  }

  async #registerCommands(): Promise<void> {
    const appId = this.client.application?.id ?? this.client.user?.id;
    if (!appId) return;
    const guild = this.#config.commandsGuild;
    const route = guild ? Routes.applicationGuildCommands(appId, guild) : Routes.applicationCommands(appId);
    try {
      await this.client.rest.put(route, { body: slashCommandsOf(COMMANDS) });
    } catch (error) {
      this.#log.warn({}, `could not register the slash commands: ${safeErrorMessage(error, this.#config.token)}`);
    }
  }

  async stop(): Promise<void> {
    this.client.removeAllListeners(Events.MessageCreate);
    this.client.removeAllListeners(Events.InteractionCreate);
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
    await this.client.destroy();
    this.#sink = undefined;
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    const pending = this.#claimPending(chat, message);
    if (pending) return this.#answerCommand(pending, chat, message);
    return this.#outbound.send(chat, message);
  }

  edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    return this.#outbound.edit(ref, message);
  }

  typing(chat: ChatRef): Promise<void> {
    return this.#outbound.typing(chat);
  }

  describe(): string[] {
    const user = this.client.user;
    const where = this.#config.commandsGuild ? `slash commands in server ${this.#config.commandsGuild}` : 'global slash commands';
    return [`${user ? `discord @${user.username}` : 'discord'} (gateway, ${where})`];
  }

  #track(work: Promise<void>): void {
    this.#work.add(work);
    void work.finally(() => this.#work.delete(work));
  }

  async #onMessage(message: Message): Promise<void> {
    const sink = this.#sink;
    const botId = this.botId;
    if (!sink || !botId) return;
    const result = classifyMessage(message, botId, this.client.user?.username ?? 'bot', this.#config, this.id);
    if (result.kind === 'ignored') {
      this.#log.debug({ reason: result.reason }, 'Discord message ignored');
      return;
    }
    try {
      await sink.onMessage(result.value);
    } catch (error) {
      this.#log.error({}, `handling a Discord message failed: ${safeErrorMessage(error, this.#config.token)}`);
    }
  }

  async #onInteraction(interaction: Interaction): Promise<void> {
    if (interaction.isButton()) return this.#onButton(interaction);
    if (interaction.isChatInputCommand()) return this.#onCommand(interaction);
  }

  async #onButton(interaction: ButtonInteraction): Promise<void> {
    // Acknowledge first: the core may take longer than Discord's 3 s (it edits the prompt).
    const deferred = await interaction.deferUpdate().then(
      () => true,
      (error: unknown) => {
        this.#log.warn({}, `could not acknowledge a button click: ${safeErrorMessage(error, this.#config.token)}`);
        return false;
      },
    );
    const sink = this.#sink;
    const result = classifyButton(interaction, this.#config, this.id);
    if (!sink || result.kind === 'ignored') {
      if (result.kind === 'ignored') this.#log.debug({ reason: result.reason }, 'Discord button click ignored');
      if (deferred) await this.#whisper(interaction, 'This button is not for you.');
      return;
    }
    const { ack } = answerOnce(async (toast) => {
      if (toast && deferred) await this.#whisper(interaction, toast);
    });
    try {
      await sink.onAction({ ...result.value, reply: { ack, whisper: async (text) => (deferred ? this.#whisper(interaction, text) : undefined) } });
    } catch (error) {
      this.#log.error({}, `handling a button click failed: ${safeErrorMessage(error, this.#config.token)}`);
      await ack('Something went wrong; please try again.');
    } finally {
      await ack();
    }
  }

  /** An ephemeral follow-up: only the clicker sees it. */
  async #whisper(interaction: ButtonInteraction, text: string): Promise<void> {
    try {
      await interaction.followUp({ content: text.slice(0, MAX_CONTENT), flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
    } catch (error) {
      this.#log.warn({}, `could not answer a button click: ${safeErrorMessage(error, this.#config.token)}`);
    }
  }

  async #onCommand(interaction: ChatInputCommandInteraction): Promise<void> {
    const ephemeral = EPHEMERAL_COMMANDS.has(interaction.commandName);
    try {
      await interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
    } catch (error) {
      this.#log.warn({}, `could not acknowledge /${interaction.commandName}: ${safeErrorMessage(error, this.#config.token)}`);
      return;
    }
    const sink = this.#sink;
    const result = classifyCommand(interaction, this.#config, this.id);
    if (!sink || result.kind === 'ignored') {
      if (result.kind === 'ignored') this.#log.debug({ reason: result.reason }, 'Discord slash command ignored');
      await interaction.editReply({ content: 'I do not take commands here.' }).catch(() => {});
      return;
    }
    const inbound = result.value;
    const pending: PendingCommand = { interaction, chatId: inbound.chatId, threadId: inbound.threadId, answered: false };
    this.#pending.set(interaction.id, pending);
    try {
      await sink.onMessage(inbound);
    } catch (error) {
      this.#log.error({}, `handling /${interaction.commandName} failed: ${safeErrorMessage(error, this.#config.token)}`);
    } finally {
      this.#pending.delete(interaction.id);
    }
    // The core answered elsewhere (e.g. "Stopped" under the stopped answer) or not at all.
    if (!pending.answered) await interaction.editReply({ content: `Done: /${interaction.commandName}` }).catch(() => {});
  }

  /**
   * The core's answer to a slash command goes into the command's deferred reply: in groups it is
   * sent as a reply to the command's id; in DMs it is the next plain message to that chat.
   */
  #claimPending(chat: ChatRef, message: OutboundMessage): PendingCommand | undefined {
    if (message.buttons?.length) return undefined;
    const byId = message.replyToMessageId ? this.#pending.get(message.replyToMessageId) : undefined;
    if (byId && !byId.answered) return byId;
    if (chat.chatType !== 'direct' || message.replyToMessageId) return undefined;
    for (const pending of this.#pending.values()) {
      if (!pending.answered && pending.chatId === chat.chatId && pending.threadId === chat.threadId) return pending;
    }
    return undefined;
  }

  async #answerCommand(pending: PendingCommand, chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    pending.answered = true;
    const { content } = bodyOf(message);
    const reply = await pending.interaction.editReply({ content, allowedMentions: { parse: [] } });
    return { channel: this.id, chatId: chat.chatId, messageId: reply.id, ...(chat.threadId ? { threadId: chat.threadId } : {}) };
  }
}
