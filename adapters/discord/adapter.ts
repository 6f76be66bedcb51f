// The Discord channel: a discord.js Client on the gateway (guild channels, threads, DMs) handing
// messages, button clicks and slash commands to the core, and replying through DiscordOutbound.
// Button clicks and slash commands reach the core with a reply handle (interactions.ts): the core
// acks first, within Discord's 3 s, with an ephemeral text for the clicker alone; the adapter
// defers an interaction the core has not acked by the deadline.
import {
  Client,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  Partials,
  Routes,
  SimpleShardingStrategy,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type Message,
} from 'discord.js';
import { z } from 'zod';
import { ChatOrder } from '../../src/core/chat-order.ts';
import { COMMANDS, type CommandInfo } from '../../src/core/commands.ts';
import { localeOrDefault, t } from '../../src/core/i18n/index.ts';
import type {
  Attachment,
  AttachmentDownload,
  AttachmentFetchOptions,
  ChannelAdapter,
  ChannelCapabilities,
  ChatRef,
  ExclusiveReceiver,
  CoreLogger,
  InboundSink,
  OutboundMessage,
  SentRef,
} from '../../src/core/types.ts';
import { isEphemeralCommand, slashCommandsOf } from './commands.ts';
import type { DiscordConfig } from './config.ts';
import { closeCodeMessage, DiscordStartError, safeErrorMessage } from './errors.ts';
import { fetchDiscordFile } from './files.ts';
import { classifyButton, classifyCommand, classifyMessage } from './inbound.ts';
import { InteractionAnswer } from './interactions.ts';
import { repairDispatch, type GatewayPacket } from './payloads.ts';
import { DiscordOutbound } from './outbound.ts';
import { MAX_CONTENT } from './render.ts';

export interface DiscordAdapterOptions {
  config: DiscordConfig;
  log: CoreLogger;
  /** Channel name in session keys and admin ids (default "discord"). */
  id?: string;
  /** How long start() waits for READY (default 30 s). */
  startTimeoutMs?: number;
  /** The slash commands (default: the core's COMMANDS). */
  commands?: readonly CommandInfo[];
  /** How long an interaction waits for the core's ack before it is deferred (Discord allows 3 s). */
  interactionDeadlineMs?: number;
}

const START_TIMEOUT_MS = 30_000;
/** What a dispatch that cannot be read is renamed to: discord.js has no handler for it. */
const DROPPED_DISPATCH = 'PARLEY_DROPPED';

/** @discordjs/ws's SessionInfo: what a gateway RESUME needs, kept with the receiver lease. */
const sessionSchema = z.object({
  sessionId: z.string(),
  sequence: z.number().int(),
  shardId: z.number().int(),
  shardCount: z.number().int(),
  resumeURL: z.string(),
});
type Session = z.infer<typeof sessionSchema>;

const botUserSchema = z.looseObject({ id: z.string(), username: z.string() });

function parseSession(state: string | undefined): Session | undefined {
  if (state === undefined) return undefined;
  const parsed = sessionSchema.safeParse(JSON.parse(state));
  return parsed.success ? parsed.data : undefined;
}
const INTERACTION_DEADLINE_MS = 2_000;

/** A slash command the core is handling; what it sends to the chat for it becomes the command's reply. */
interface PendingCommand {
  answer: InteractionAnswer;
  chatId: string;
  threadId: string | undefined;
}

export class DiscordAdapter implements ChannelAdapter {
  readonly id: string;
  readonly kind = 'discord';
  readonly capabilities: ChannelCapabilities;
  readonly client: Client;
  readonly #config: DiscordConfig;
  readonly #log: CoreLogger;
  readonly #startTimeoutMs: number;
  readonly #commands: readonly CommandInfo[];
  readonly #interactionDeadlineMs: number;
  readonly #outbound: DiscordOutbound;
  readonly #pending = new Map<string, PendingCommand>();
  readonly #work = new Set<Promise<void>>();
  /** Messages handed to the core: channels side by side, one channel's in the order they came. */
  readonly #order = new ChatOrder();
  #sink: InboundSink | undefined;
  /** The gateway connection is run by the core under the receiver lease (exclusiveReceiver() was called). */
  #gatewayManaged = false;
  /** The previous holder's session, handed to the next connect so that it RESUMEs instead of IDENTIFYing. */
  #resumeFrom: Session | undefined;
  /** The live session as @discordjs/ws last reported it (sequence updated on every dispatch). */
  #session: Session | undefined;

  constructor(options: DiscordAdapterOptions) {
    this.id = options.id ?? 'discord';
    this.#config = options.config;
    this.#log = options.log;
    this.#startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
    this.#commands = options.commands ?? COMMANDS;
    this.#interactionDeadlineMs = options.interactionDeadlineMs ?? INTERACTION_DEADLINE_MS;
    this.capabilities = {
      maxTextLength: MAX_CONTENT,
      maxButtonPayload: 100,
      canEdit: true,
      canButtons: true,
      canEphemeral: true,
      hasThreads: true,
      hasTyping: true,
      repliesInDirect: true,
      idempotentSends: true,
      editIntervalMs: { ...options.config.editIntervalMs },
    };
    this.client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      partials: [Partials.Channel],
      ws: { buildStrategy: (manager) => this.#seedSession(manager) },
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
    this.#outbound = new DiscordOutbound({
      rest: this.client.rest,
      channel: this.id,
      token: options.config.token,
      log: options.log,
      goneRetryMs: 10 * 60_000,
    });
  }

  get botId(): string | undefined {
    return this.client.user?.id;
  }

  async start(sink: InboundSink): Promise<void> {
    this.#sink = sink;
    // discord.js hands each dispatch to Events.Raw and then, the same packet object, to its own
    // handlers (WebSocketManager): a repaired payload is what it reads.
    this.client.on(Events.Raw, this.#repair);
    // Channels side by side, one channel's messages in order: a message taken before the one
    // that came first could start the session's turn ahead of it.
    this.client.on(Events.MessageCreate, (message) => this.#track(this.#order.run(message.channelId, () => this.#onMessage(message))));
    this.client.on(Events.InteractionCreate, (interaction) => this.#track(this.#onInteraction(interaction)));
    this.client.on(Events.ShardError, (error) =>
      this.#log.warn({}, `Discord gateway error: ${safeErrorMessage(error, this.#config.token)}`),
    );
    if (this.#gatewayManaged) {
      // Sending needs only REST; the gateway (one session per bot) connects when this process holds it.
      this.client.rest.setToken(this.#config.token);
      // A wrong token or an unreachable API is said now, with one line, rather than on every beat.
      await this.#checkToken();
      return;
    }
    await this.#connect();
    await this.#registerCommands();
  }

  /** The token, asked of REST (`GET /users/@me`) within the start timeout; a DiscordStartError when refused or unreachable. */
  async #checkToken(): Promise<void> {
    const token = this.#config.token;
    try {
      await this.client.rest.get(Routes.user(), { signal: AbortSignal.timeout(this.#startTimeoutMs) });
    } catch (error) {
      const text = safeErrorMessage(error, token);
      if (error instanceof DiscordAPIError && (error.status === 401 || error.status === 403))
        throw new DiscordStartError(
          `Discord rejected DISCORD_BOT_TOKEN (${text}): copy a fresh token from the Developer Portal (your application → Bot → Reset Token)`,
        );
      throw new DiscordStartError(`could not reach Discord at ${this.#config.apiRoot} (${text})`);
    }
  }

  /** The gateway session is the one receiver per bot token (every connection would get every event). */
  exclusiveReceiver(): ExclusiveReceiver {
    this.#gatewayManaged = true;
    return {
      start: async (onEnded, resumeFrom) => {
        this.#resumeFrom = parseSession(resumeFrom);
        const resumed = await this.#connect(onEnded);
        if (!resumed) await this.#registerCommands();
      },
      stop: () => this.client.destroy(),
      state: () => (this.#session ? JSON.stringify(this.#session) : undefined),
    };
  }

  /**
   * discord.js has no option to start from a stored session: its WebSocketManager answers
   * @discordjs/ws's retrieveSessionInfo from its own shards, created empty on connect. The strategy
   * hook is the one place that sees those options before the shard connects, so the seeded session
   * is answered there once (and stored on the shard, as discord.js does, so that it reports Resuming),
   * and the updates are watched there.
   */
  #seedSession(manager: ConstructorParameters<typeof SimpleShardingStrategy>[0]): SimpleShardingStrategy {
    const options = manager.options;
    const retrieve = options.retrieveSessionInfo;
    const update = options.updateSessionInfo;
    Object.assign(options, {
      updateSessionInfo: (shardId: number, info: Session | null) => {
        this.#session = info ?? undefined;
        update(shardId, info);
      },
      retrieveSessionInfo: (shardId: number) => {
        const seeded = this.#resumeFrom;
        if (!seeded || seeded.shardId !== shardId) return retrieve(shardId);
        this.#resumeFrom = undefined;
        update(shardId, seeded);
        return seeded;
      },
    });
    return new SimpleShardingStrategy(manager);
  }

  /** Connects (a RESUME when a session was seeded); true when the seeded session was resumed. */
  async #connect(onEnded?: (error: unknown) => void): Promise<boolean> {
    const token = this.#config.token;
    let timer: NodeJS.Timeout | undefined;
    let onDisconnect: ((event: { code: number }) => void) | undefined;
    const failed = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new DiscordStartError(`could not reach Discord at ${this.#config.apiRoot} within ${this.#startTimeoutMs / 1000} s`)),
        this.#startTimeoutMs,
      );
      onDisconnect = ({ code }) =>
        reject(new DiscordStartError(closeCodeMessage(code) ?? `the Discord gateway closed the connection (code ${code})`));
      this.client.once(Events.ShardDisconnect, onDisconnect);
    });
    let onRaw: ((packet: { t?: string }) => void) | undefined;
    const ready = new Promise<boolean>((resolve) => {
      this.client.once(Events.ClientReady, () => resolve(false));
      onRaw = (packet) => {
        if (packet.t === 'RESUMED') resolve(true);
      };
      this.client.on(Events.Raw, onRaw);
    });
    let resumed: boolean;
    try {
      resumed = await Promise.race([this.client.login(token).then(() => ready), failed]);
      if (resumed && !this.client.isReady()) await this.#readyAfterResume();
    } catch (error) {
      await this.client.destroy().catch(() => {});
      if (error instanceof DiscordStartError) throw error;
      const text = safeErrorMessage(error, token);
      if (/token/i.test(text))
        throw new DiscordStartError(
          `Discord rejected DISCORD_BOT_TOKEN (${text}): copy a fresh token from the Developer Portal (your application → Bot → Reset Token)`,
        );
      throw new DiscordStartError(`could not connect to Discord at ${this.#config.apiRoot} (${text})`);
    } finally {
      clearTimeout(timer);
      if (onDisconnect) this.client.off(Events.ShardDisconnect, onDisconnect);
      if (onRaw) this.client.off(Events.Raw, onRaw);
    }
    this.client.once(Events.ShardDisconnect, ({ code }) => {
      const text = closeCodeMessage(code) ?? `the Discord gateway closed the connection for good (code ${code})`;
      this.#log.error({ code }, text);
      onEnded?.(new DiscordStartError(text));
    });
    return resumed;
  }

  /**
   * A resumed session gets no READY nor GUILD_CREATE, and discord.js holds every dispatch (the
   * replayed messages too) until its client is ready. The bot user and its guilds (with their
   * channels, without which discord.js drops guild messages) come from REST instead, fed through
   * discord.js's own GUILD_CREATE and READY paths (a bot's application id is its user id).
   */
  async #readyAfterResume(): Promise<void> {
    const rest = this.client.rest;
    const user = botUserSchema.parse(await rest.get(Routes.user()));
    const ids = z.array(z.looseObject({ id: z.string() })).parse(await rest.get(Routes.userGuilds()));
    const guilds = await Promise.all(
      ids.map(async ({ id }) => {
        const [guild, channels] = await Promise.all([rest.get(Routes.guild(id)), rest.get(Routes.guildChannels(id))]);
        return { ...z.looseObject({ id: z.string() }).parse(guild), channels, threads: [], members: [], unavailable: false };
      }),
    );
    // discord.js's private dispatch entries (the calls the gateway frames take).
    const shard = this.client.ws.shards.get(0) as unknown as { onReadyPacket(d: object): void } | undefined;
    const ws = this.client.ws as unknown as { handlePacket(packet: object, shard: unknown): boolean };
    for (const guild of guilds) ws.handlePacket({ t: 'GUILD_CREATE', d: guild }, shard);
    const ready = { user, guilds: [], application: { id: user.id, flags: 0 } };
    shard?.onReadyPacket(ready);
    ws.handlePacket({ t: 'READY', d: ready }, shard);
  }

  async #registerCommands(): Promise<void> {
    const appId = this.client.application?.id ?? this.client.user?.id;
    if (!appId) return;
    const guild = this.#config.commandsGuild;
    const route = guild ? Routes.applicationGuildCommands(appId, guild) : Routes.applicationCommands(appId);
    try {
      await this.client.rest.put(route, { body: slashCommandsOf(this.#commands) });
    } catch (error) {
      this.#log.warn({}, `could not register the slash commands: ${safeErrorMessage(error, this.#config.token)}`);
    }
  }

  async stop(): Promise<void> {
    this.client.off(Events.Raw, this.#repair);
    this.client.removeAllListeners(Events.MessageCreate);
    this.client.removeAllListeners(Events.InteractionCreate);
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
    await this.client.destroy();
    this.#sink = undefined;
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    const pending = this.#claimPending(chat, message);
    const replyId = pending ? await pending.answer.respond(message.text) : undefined;
    if (replyId)
      return { channel: this.id, chatId: chat.chatId, messageId: replyId, ...(chat.threadId ? { threadId: chat.threadId } : {}) };
    // No command to answer, or its interaction is gone: an ordinary message.
    const { replyToMessageId, ...rest } = message;
    return this.#outbound.send(chat, pending ? rest : message);
  }

  edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    return this.#outbound.edit(ref, message);
  }

  typing(chat: ChatRef): Promise<void> {
    return this.#outbound.typing(chat);
  }

  mentionName(): string | undefined {
    return this.client.user?.username;
  }

  /** The attachment's CDN URL, renewed through REST when it expired (files.ts). */
  fetchAttachment(attachment: Attachment, options: AttachmentFetchOptions): Promise<AttachmentDownload> {
    return fetchDiscordFile({ rest: this.client.rest, apiRoot: this.#config.apiRoot }, attachment, options);
  }

  describe(): string[] {
    const user = this.client.user;
    const where = this.#config.commandsGuild ? `slash commands in server ${this.#config.commandsGuild}` : 'global slash commands';
    return [`${user ? `discord @${user.username}` : 'discord'} (gateway, ${where})`];
  }

  /** Runs an event's handling to its end; a failure is logged, never left an unhandled rejection (which ends the process). */
  #track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => {
      this.#log.error({}, `handling a Discord event failed: ${safeErrorMessage(error, this.#config.token)}`);
    });
    this.#work.add(tracked);
    void tracked.finally(() => this.#work.delete(tracked));
  }

  /** Checks and repairs a message or interaction before discord.js reads it; one it cannot read is dropped, once, loudly. */
  readonly #repair = (packet: GatewayPacket): void => {
    const event = packet.t;
    const problem = repairDispatch(packet, (id) => this.client.channels.cache.get(id)?.type);
    if (problem === undefined) return;
    this.#log.warn({ event }, `dropped a malformed Discord ${event}: ${problem}`);
    packet.t = DROPPED_DISPATCH;
  };

  async #onMessage(message: Message): Promise<void> {
    const sink = this.#sink;
    const botId = this.botId;
    if (!sink || !botId) return;
    try {
      const result = classifyMessage(message, botId, this.client.user?.username ?? 'bot', this.#config, this.id);
      if (result.kind === 'ignored') {
        this.#log.debug({ reason: result.reason }, 'Discord message ignored');
        return;
      }
      await sink.onMessage(result.value);
    } catch (error) {
      this.#log.error({}, `handling a Discord message failed: ${safeErrorMessage(error, this.#config.token)}`);
    }
  }

  async #onInteraction(interaction: Interaction): Promise<void> {
    if (interaction.isButton()) return this.#onButton(interaction);
    if (interaction.isChatInputCommand()) return this.#onCommand(interaction);
  }

  #answerFor(interaction: ButtonInteraction | ChatInputCommandInteraction, ephemeral = false): InteractionAnswer {
    return new InteractionAnswer(interaction, {
      log: this.#log,
      token: this.#config.token,
      deadlineMs: this.#interactionDeadlineMs,
      ephemeral,
    });
  }

  /** The core decides and acks (ack first); the adapter only makes sure an answer leaves in time. */
  async #onButton(interaction: ButtonInteraction): Promise<void> {
    const answer = this.#answerFor(interaction);
    const sink = this.#sink;
    try {
      const result = classifyButton(interaction, this.#config, this.id);
      if (!sink || result.kind === 'ignored') {
        if (result.kind === 'ignored') this.#log.debug({ reason: result.reason }, 'Discord button click ignored');
        await answer.ack(t(localeOrDefault(interaction.locale), 'adapter.notYourButton'));
        return;
      }
      await sink.onAction({ ...result.value, reply: answer });
    } catch (error) {
      this.#log.error({}, `handling a button click failed: ${safeErrorMessage(error, this.#config.token)}`);
      await answer.ack(t(localeOrDefault(interaction.locale), 'general.tryAgain'));
    } finally {
      await answer.finish();
    }
  }

  async #onCommand(interaction: ChatInputCommandInteraction): Promise<void> {
    const answer = this.#answerFor(interaction, isEphemeralCommand(interaction.commandName));
    const sink = this.#sink;
    const result = classifyCommand(interaction, this.#config, this.id);
    if (!sink || result.kind === 'ignored') {
      if (result.kind === 'ignored') this.#log.debug({ reason: result.reason }, 'Discord slash command ignored');
      await answer.ack(t(localeOrDefault(interaction.locale), 'adapter.noCommandsHere'));
      await answer.finish();
      return;
    }
    const inbound = result.value;
    this.#pending.set(interaction.id, { answer, chatId: inbound.chatId, threadId: inbound.threadId });
    try {
      await sink.onMessage(inbound, answer);
    } catch (error) {
      this.#log.error({}, `handling /${interaction.commandName} failed: ${safeErrorMessage(error, this.#config.token)}`);
      await answer.ack(t(localeOrDefault(interaction.locale), 'general.tryAgain'));
    } finally {
      this.#pending.delete(interaction.id);
    }
    await answer.finish();
  }

  /**
   * What the core sends to the chat for a slash command becomes the command's own reply: in groups
   * it is sent as a reply to the command's id; in DMs it is the next plain message to that chat.
   */
  #claimPending(chat: ChatRef, message: OutboundMessage): PendingCommand | undefined {
    if (message.buttons?.length) return undefined;
    const byId = message.replyToMessageId ? this.#pending.get(message.replyToMessageId) : undefined;
    if (byId?.answer.awaitingAnswer) return byId;
    if (chat.chatType !== 'direct' || message.replyToMessageId) return undefined;
    for (const pending of this.#pending.values()) {
      if (pending.answer.awaitingAnswer && pending.chatId === chat.chatId && pending.threadId === chat.threadId) return pending;
    }
    return undefined;
  }
}
