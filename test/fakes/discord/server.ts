// A Discord API v10 on 127.0.0.1 for tests: REST under /api/v10 and the gateway (gateway.ts). The
// real discord.js client talks to it with `rest: { api }`. Strict where Discord is: 2000-character
// content, component limits (5 rows × 5 buttons, label ≤ 80, custom_id ≤ 100), interaction
// callbacks only within 3 s and only once, interaction tokens for 15 minutes, edits of one message
// limited to 5 per 5 s (429 with retry_after), only the author edits a message, and channels the
// bot was removed from answer 403 Missing Access. Tests inject events and read every call.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applicationRoute } from './application.ts';
import { FakeCdn } from './cdn.ts';
import { FakeGateway } from './gateway.ts';
import {
  ChannelKind,
  channelObject,
  guildCreate,
  member,
  messageMember,
  snowflake,
  threadChannel,
  user,
  type DChannel,
  type DComponent,
  type DGuild,
  type DMessage,
  type DUser,
  type UserOptions,
} from './payloads.ts';

export interface RecordedCall {
  method: string;
  path: string;
  body: unknown;
  status: number;
  at: number;
}

export interface StoredMessage {
  message: DMessage;
  /** Every content the message had, oldest first. */
  versions: string[];
  ephemeral: boolean;
  /** An interaction's reply that was deleted. */
  deleted?: boolean;
}

export interface SayOptions {
  mention?: boolean;
  replyTo?: DMessage;
  files?: FileOptions[];
  /** A voice message (flags 8192): one .ogg attachment with duration_secs and a waveform. */
  voice?: { bytes: Buffer; durationSecs: number };
}

interface FileOptions {
  filename: string;
  /** Defaults to the length of `bytes`. */
  size?: number;
  contentType?: string;
  /** What the CDN serves at the attachment's URL (an empty file when absent). */
  bytes?: Buffer;
  width?: number;
  height?: number;
}

/** MessageFlags.IsVoiceMessage. */
const VOICE_MESSAGE_FLAG = 8192;

export interface InteractionState {
  id: string;
  token: string;
  kind: 'button' | 'command';
  user: DUser;
  createdAt: number;
  /** Callback type (5 deferred reply, 6 deferred update, 4 reply, 7 update) and when it came. */
  ack?: { type: number; at: number; flags: number };
  refusedCallbacks: number;
  /** The deferred/immediate reply (`@original`), once there is one. */
  original?: StoredMessage;
  followUps: StoredMessage[];
}

export interface FakeDiscordOptions {
  /** The Developer Portal's "Message Content Intent" switch (default on). */
  messageContent?: boolean;
  /** How long an interaction callback may take (default 3 s, as Discord). */
  interactionDeadlineMs?: number;
}

class HttpError extends Error {
  readonly status: number;
  readonly code: number;
  readonly retryAfter: number | undefined;
  constructor(status: number, code: number, message: string, retryAfter?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

const EDIT_LIMIT = 5;
const EDIT_WINDOW_MS = 5_000;
const TOKEN_TTL_MS = 15 * 60_000;
const EPHEMERAL = 64;

export class FakeDiscord {
  readonly token = `${Buffer.from('1234567890123456789').toString('base64url')}.GfakeT.${'x'.repeat(27)}`;
  readonly bot: DUser = user('parley_test_bot', { bot: true });
  readonly calls: RecordedCall[] = [];
  /** The attachment CDN on this fake's port (cdn.ts). */
  readonly cdn = new FakeCdn(() => `http://127.0.0.1:${this.#port}`);
  readonly messages = new Map<string, StoredMessage>();
  /** Bot messages by channel and nonce (enforce_nonce: a repeated nonce returns the first message). */
  readonly #nonces = new Map<string, string>();
  /** POSTs of a message that a nonce answered with an existing one. */
  nonceRepeats = 0;
  readonly interactions = new Map<string, InteractionState>();
  readonly channels = new Map<string, DChannel>();
  readonly guilds: DGuild[] = [];
  readonly threads: DChannel[] = [];
  /** Registered slash commands per scope ("global" or a guild id). */
  readonly commands = new Map<string, unknown[]>();
  /** Channels the bot was removed from. */
  readonly lockedOut = new Set<string>();
  messageContent: boolean;
  /** The token is reset after GET /gateway/bot: IDENTIFY gets close code 4004. */
  tokenRevokedAtGateway = false;
  /** Delay before answering message edits (a slow REST API). */
  editDelayMs = 0;
  /** Moves the fake's clock for interaction tokens (simulate 15 minutes passing). */
  clockOffsetMs = 0;
  readonly gateway: FakeGateway;
  readonly #server: Server;
  readonly #deadlineMs: number;
  readonly #edits = new Map<string, number[]>();
  #port = 0;

  private constructor(options: FakeDiscordOptions) {
    this.messageContent = options.messageContent ?? true;
    this.#deadlineMs = options.interactionDeadlineMs ?? 3_000;
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.gateway = new FakeGateway(
      this.#server,
      {
        token: () => (this.tokenRevokedAtGateway ? 'revoked' : this.token),
        messageContentAllowed: () => this.messageContent,
        ready: (sessionId, resumeUrl) => ({
          ready: {
            v: 10,
            user: this.bot,
            guilds: this.guilds.map((g) => ({ id: g.id, unavailable: true })),
            session_id: sessionId,
            resume_gateway_url: resumeUrl,
            application: { id: this.bot.id, flags: 0 },
            private_channels: [],
            relationships: [],
            user_settings: {},
            presences: [],
          },
          guilds: this.guilds.map((g) =>
            guildCreate(
              g,
              this.threads.filter((t) => t.guild_id === g.id),
            ),
          ),
        }),
      },
      () => `ws://127.0.0.1:${this.#port}/gateway`,
    );
  }

  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const fake = new FakeDiscord(options);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  get apiRoot(): string {
    return `http://127.0.0.1:${this.#port}/api`;
  }

  async close(): Promise<void> {
    await this.gateway.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // ---- the world ---------------------------------------------------------------------------

  user(name: string, options?: UserOptions): DUser {
    return user(name, options);
  }

  guild(name: string, channelNames = ['general']): { guild: DGuild; channels: DChannel[] } {
    const guild: DGuild = { id: snowflake(), name, channels: [] };
    for (const channelName of channelNames) {
      const channel: DChannel = { id: snowflake(), type: ChannelKind.GuildText, guild_id: guild.id, name: channelName };
      guild.channels.push(channel);
      this.channels.set(channel.id, channel);
    }
    this.guilds.push(guild);
    // The bot joins: a connected client learns about it now; later sessions in READY.
    this.gateway.dispatch('GUILD_CREATE', guildCreate(guild, []));
    return { guild, channels: guild.channels };
  }

  dm(person: DUser): DChannel {
    const channel: DChannel = { id: snowflake(), type: ChannelKind.DM, recipient: person };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** A new public thread under `parent` (THREAD_CREATE is dispatched). */
  thread(parent: DChannel, name: string, owner: DUser): DChannel {
    const thread = threadChannel(snowflake(), parent.guild_id!, parent.id, name, owner.id);
    this.threads.push(thread);
    this.channels.set(thread.id, thread);
    this.gateway.dispatch('THREAD_CREATE', { ...thread, newly_created: true });
    return thread;
  }

  /** A person posts a message (MESSAGE_CREATE is dispatched). */
  say(author: DUser, channel: DChannel, content: string, options: SayOptions = {}): DMessage {
    const { message, event } = this.compose(author, channel, content, options);
    this.gateway.dispatch('MESSAGE_CREATE', event);
    return message;
  }

  /** The message a person posts and the MESSAGE_CREATE that carries it, stored but not dispatched (a test sends it, or a variant). */
  compose(
    author: DUser,
    channel: DChannel,
    content: string,
    options: SayOptions = {},
  ): { message: DMessage; event: Record<string, unknown> } {
    const text = options.mention ? `<@${this.bot.id}> ${content}` : content;
    // Discord's clients send a nonce with every message; the gateway passes it on.
    const message: DMessage = { ...this.#message(author, channel, text, []), nonce: snowflake(), referenced_message: null };
    message.attachments = (options.files ?? []).map((file) => {
      const id = snowflake();
      const bytes = file.bytes ?? Buffer.alloc(0);
      const path = this.cdn.add({
        channelId: channel.id,
        attachmentId: id,
        filename: file.filename,
        bytes,
        ...(file.contentType ? { contentType: file.contentType } : {}),
      });
      // proxy_url is the media proxy's copy (media.discordapp.net), signed the same way.
      return {
        id,
        filename: file.filename,
        size: file.size ?? bytes.length,
        url: this.cdn.signed(path),
        proxy_url: this.cdn.signed(path).replace('/attachments/', '/media-proxy/attachments/'),
        ...(file.contentType ? { content_type: file.contentType } : {}),
        ...(file.width !== undefined ? { width: file.width, height: file.height ?? 0 } : {}),
      };
    });
    if (options.voice) {
      const id = snowflake();
      const path = this.cdn.add({
        channelId: channel.id,
        attachmentId: id,
        filename: 'voice-message.ogg',
        bytes: options.voice.bytes,
        contentType: 'audio/ogg',
      });
      const url = this.cdn.signed(path);
      message.flags = VOICE_MESSAGE_FLAG;
      message.attachments.push({
        id,
        filename: 'voice-message.ogg',
        size: options.voice.bytes.length,
        url,
        proxy_url: url.replace('/attachments/', '/media-proxy/attachments/'),
        content_type: 'audio/ogg',
        duration_secs: options.voice.durationSecs,
        waveform: Buffer.alloc(32, 96).toString('base64'),
      });
    }
    if (options.mention) message.mentions = [this.bot];
    if (options.replyTo) {
      message.type = 19;
      message.message_reference = {
        type: 0,
        message_id: options.replyTo.id,
        channel_id: channel.id,
        ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
      };
      message.referenced_message = options.replyTo;
    }
    this.messages.set(message.id, { message, versions: [message.content], ephemeral: false });
    return { message, event: this.#withMember(message, author, channel) };
  }

  /** Dispatches an event again, as Discord may after a resume. */
  redeliver(message: DMessage): void {
    const channel = this.channels.get(message.channel_id)!;
    this.gateway.dispatch('MESSAGE_CREATE', this.#withMember(message, message.author, channel));
  }

  /** A person clicks a button of `message` (INTERACTION_CREATE). Returns the interaction id. */
  click(person: DUser, message: DMessage, customId: string): string {
    const { id, event } = this.press(person, message, customId);
    this.gateway.dispatch('INTERACTION_CREATE', event);
    return id;
  }

  /** The INTERACTION_CREATE of a click, registered (answerable) but not dispatched (a test sends it, or a variant). */
  press(person: DUser, message: DMessage, customId: string): { id: string; event: Record<string, unknown> } {
    const channel = this.channels.get(message.channel_id)!;
    return this.#interaction(person, channel, 'button', { message, data: { custom_id: customId, component_type: 2 } });
  }

  /** A person runs a slash command in `channel`; `locale` is their client's language (every interaction carries one). */
  slash(person: DUser, channel: DChannel, name: string, options: Record<string, string> = {}, locale = 'en-US'): string {
    const data = {
      id: snowflake(),
      name,
      type: 1,
      options: Object.entries(options).map(([optionName, value]) => ({ name: optionName, type: 3, value })),
    };
    const { id, event } = this.#interaction(person, channel, 'command', { data, locale });
    this.gateway.dispatch('INTERACTION_CREATE', event);
    return id;
  }

  /** Someone deletes a message (a moderator, or the bot's owner in the client). */
  deleteMessage(id: string): void {
    this.messages.delete(id);
  }

  buttonOf(message: DMessage, label: string): string {
    const button = message.components.flatMap((row) => row.components ?? []).find((c) => c.label === label);
    if (!button?.custom_id) throw new Error(`no button "${label}" on message ${message.id}`);
    return button.custom_id;
  }

  /** Messages the bot posted in a channel (not ephemeral), oldest first. */
  botMessages(channel: DChannel): StoredMessage[] {
    return [...this.messages.values()].filter(
      (m) => m.message.channel_id === channel.id && m.message.author.id === this.bot.id && !m.ephemeral,
    );
  }

  callsTo(method: string, pathPattern: RegExp): RecordedCall[] {
    return this.calls.filter((c) => c.method === method && pathPattern.test(c.path));
  }

  // ---- REST ----------------------------------------------------------------------------------

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const path = decodeURIComponent(url.pathname).replace(/^\/api\/v10/, '');
    const call: RecordedCall = { method, path, body, status: 0, at: Date.now() };
    this.calls.push(call);
    let status = 200;
    let payload: unknown;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (method === 'GET' && url.pathname.startsWith('/attachments/')) {
      const served = this.cdn.serve(url.pathname, url.searchParams, req.headers.authorization);
      call.status = served.status;
      res.writeHead(served.status, served.headers).end(served.body);
      return;
    }
    try {
      if (!url.pathname.startsWith('/api/v10/')) throw new HttpError(404, 0, '404: Not Found');
      const needsBotAuth = !/^\/(webhooks|interactions)\//.test(path);
      if (needsBotAuth && req.headers.authorization !== `Bot ${this.token}`) throw new HttpError(401, 0, '401: Unauthorized');
      payload = await this.#route(method, path, body);
      if (payload === undefined) status = 204;
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      status = error.status;
      payload = {
        message: error.message,
        code: error.code,
        ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter, global: false } : {}),
      };
      if (error.retryAfter !== undefined) {
        headers['retry-after'] = String(error.retryAfter);
        headers['x-ratelimit-scope'] = 'user';
      }
    }
    call.status = status;
    if (status === 204) delete headers['content-type'];
    res.writeHead(status, headers);
    res.end(status === 204 ? undefined : JSON.stringify(payload));
  }

  async #route(method: string, path: string, body: unknown): Promise<unknown> {
    const b = (body ?? {}) as Record<string, unknown>;
    const on = (verb: string, pattern: RegExp): RegExpExecArray | null => (method === verb ? pattern.exec(path) : null);
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/gateway/bot') {
      return {
        url: `ws://127.0.0.1:${this.#port}/gateway`,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
      };
    }
    if (method === 'GET' && path === '/users/@me') return this.bot;
    if (method === 'POST' && path === '/attachments/refresh-urls') return this.cdn.refresh(body);
    const application = applicationRoute(this, method, path);
    if (application) return application.body;
    if (method === 'GET' && path === '/users/@me/guilds') return this.guilds.map((g) => ({ id: g.id, name: g.name }));
    m = on('GET', /^\/guilds\/(\d+)(\/channels)?$/);
    if (m) {
      const guild = this.guilds.find((g) => g.id === m![1]);
      if (!guild) throw new HttpError(404, 10004, 'Unknown Guild');
      if (m[2]) return guild.channels;
      const { channels: _channels, ...rest } = guildCreate(guild, []) as { channels?: unknown };
      return rest;
    }
    m = on('PUT', /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/);
    if (m) {
      const list = Array.isArray(body) ? body : [];
      this.commands.set(m[2] ?? 'global', list);
      return list.map((c: object) => ({ ...c, id: snowflake(), application_id: m![1], version: snowflake() }));
    }
    m = on('POST', /^\/channels\/(\d+)\/typing$/);
    if (m) {
      this.#channel(m[1]!);
      return undefined;
    }
    m = on('POST', /^\/channels\/(\d+)\/messages$/);
    if (m) {
      const channel = this.#channel(m[1]!);
      const nonce =
        b.enforce_nonce === true && (typeof b.nonce === 'string' || typeof b.nonce === 'number') ? `${channel.id}:${b.nonce}` : undefined;
      const earlier = nonce ? this.messages.get(this.#nonces.get(nonce) ?? '') : undefined;
      if (earlier) {
        this.nonceRepeats++;
        return earlier.message;
      }
      const message = this.#message(this.bot, channel, this.#content(b, true), this.#components(b));
      if (typeof b.nonce === 'string' || typeof b.nonce === 'number') message.nonce = String(b.nonce);
      const reference = b.message_reference as { message_id?: string } | undefined;
      if (reference?.message_id) {
        const target = this.messages.get(reference.message_id);
        message.type = 19;
        message.message_reference = { type: 0, message_id: reference.message_id, channel_id: channel.id };
        message.referenced_message = target?.message ?? null;
      }
      this.messages.set(message.id, { message, versions: [message.content], ephemeral: false });
      if (nonce) this.#nonces.set(nonce, message.id);
      return message;
    }
    m = on('PATCH', /^\/channels\/(\d+)\/messages\/(\d+)$/);
    if (m) {
      this.#channel(m[1]!);
      const stored = this.messages.get(m[2]!);
      if (!stored || stored.message.channel_id !== m[1]) throw new HttpError(404, 10008, 'Unknown Message');
      if (stored.message.author.id !== this.bot.id) throw new HttpError(403, 50005, 'Cannot edit a message authored by another user');
      this.#limitEdits(stored.message.id);
      if (this.editDelayMs > 0) await new Promise((r) => setTimeout(r, this.editDelayMs));
      return this.#edit(stored, b);
    }
    m = on('POST', /^\/interactions\/(\d+)\/([^/]+)\/callback$/);
    if (m) {
      return this.#callback(m[1]!, m[2]!, b);
    }
    m = on('PATCH', /^\/webhooks\/(\d+)\/([^/]+)\/messages\/@original$/);
    if (m) {
      const interaction = this.#byToken(m[2]!);
      if (!interaction.original) throw new HttpError(404, 10008, 'Unknown Message');
      return this.#edit(interaction.original, b);
    }
    m = on('DELETE', /^\/webhooks\/(\d+)\/([^/]+)\/messages\/@original$/);
    if (m) {
      const interaction = this.#byToken(m[2]!);
      if (!interaction.original || interaction.original.deleted) throw new HttpError(404, 10008, 'Unknown Message');
      interaction.original.deleted = true;
      this.messages.delete(interaction.original.message.id);
      return undefined;
    }
    m = on('POST', /^\/webhooks\/(\d+)\/([^/]+)$/);
    if (m) {
      const interaction = this.#byToken(m[2]!);
      if (!interaction.ack) throw new HttpError(400, 40060, 'Interaction has not been acknowledged.');
      const flags = typeof b.flags === 'number' ? b.flags : 0;
      const channel = this.#interactionChannel.get(interaction.id)!;
      const message = this.#message(this.bot, channel, this.#content(b, true), this.#components(b), flags);
      const stored = { message, versions: [message.content], ephemeral: (flags & EPHEMERAL) !== 0 };
      this.messages.set(message.id, stored);
      interaction.followUps.push(stored);
      return message;
    }
    throw new HttpError(404, 0, `404: Not Found (${method} ${path})`);
  }

  readonly #interactionChannel = new Map<string, DChannel>();

  #interaction(
    person: DUser,
    channel: DChannel,
    kind: 'button' | 'command',
    extra: Record<string, unknown>,
  ): { id: string; event: Record<string, unknown> } {
    const id = snowflake();
    const token = `itoken-${id}-${Math.random().toString(36).slice(2)}`;
    this.interactions.set(id, { id, token, kind, user: person, createdAt: Date.now(), refusedCallbacks: 0, followUps: [] });
    this.#interactionChannel.set(id, channel);
    const inGuild = channel.guild_id !== undefined;
    const guild = inGuild
      ? {
          guild: { features: [], id: channel.guild_id, locale: 'en-US' },
          guild_id: channel.guild_id,
          guild_locale: 'en-US',
          member: member(person),
        }
      : { user: person };
    const { recipient, ...rest } = channel;
    const channelObj = recipient
      ? { flags: 0, id: rest.id, last_message_id: null, recipients: [recipient], type: rest.type }
      : channelObject(rest);
    const event = {
      app_permissions: '2248473465835073',
      application_id: this.bot.id,
      attachment_size_limit: 10_485_760,
      authorizing_integration_owners: { [inGuild ? '0' : '1']: channel.guild_id ?? person.id },
      channel: channelObj,
      channel_id: channel.id,
      context: inGuild ? 0 : 1,
      entitlement_sku_ids: [],
      entitlements: [],
      ...guild,
      id,
      locale: 'en-US',
      token,
      type: kind === 'button' ? 3 : 2,
      version: 1,
      ...extra,
    };
    return { id, event };
  }

  #callback(id: string, token: string, b: Record<string, unknown>): unknown {
    const interaction = this.interactions.get(id);
    if (!interaction || interaction.token !== token) throw new HttpError(404, 10062, 'Unknown interaction');
    if (interaction.ack) {
      interaction.refusedCallbacks++;
      throw new HttpError(400, 40060, 'Interaction has already been acknowledged.');
    }
    if (Date.now() - interaction.createdAt > this.#deadlineMs) {
      interaction.refusedCallbacks++;
      throw new HttpError(404, 10062, 'Unknown interaction');
    }
    const type = typeof b.type === 'number' ? b.type : 0;
    const data = (b.data ?? {}) as Record<string, unknown>;
    const flags = typeof data.flags === 'number' ? data.flags : 0;
    interaction.ack = { type, at: Date.now(), flags };
    if (type === 4 || type === 5) {
      const channel = this.#interactionChannel.get(id)!;
      const message = this.#message(this.bot, channel, type === 4 ? this.#content(data, true) : '', [], flags);
      interaction.original = { message, versions: [message.content], ephemeral: (flags & EPHEMERAL) !== 0 };
      this.messages.set(message.id, interaction.original);
    }
    return undefined;
  }

  #byToken(token: string): InteractionState {
    const interaction = [...this.interactions.values()].find((i) => i.token === token);
    if (!interaction || Date.now() + this.clockOffsetMs - interaction.createdAt > TOKEN_TTL_MS)
      throw new HttpError(401, 50027, 'Invalid Webhook Token');
    return interaction;
  }

  #channel(id: string): DChannel {
    const channel = this.channels.get(id);
    if (!channel) throw new HttpError(404, 10003, 'Unknown Channel');
    if (this.lockedOut.has(id)) throw new HttpError(403, 50001, 'Missing Access');
    return channel;
  }

  #limitEdits(messageId: string): void {
    const now = Date.now();
    const recent = (this.#edits.get(messageId) ?? []).filter((at) => now - at < EDIT_WINDOW_MS);
    if (recent.length >= EDIT_LIMIT) {
      const retryAfter = Math.max(0.05, (recent[0]! + EDIT_WINDOW_MS - now) / 1000);
      this.#edits.set(messageId, recent);
      throw new HttpError(429, 0, 'You are being rate limited.', Number(retryAfter.toFixed(3)));
    }
    recent.push(now);
    this.#edits.set(messageId, recent);
  }

  #edit(stored: StoredMessage, b: Record<string, unknown>): DMessage {
    if ('content' in b) stored.message.content = this.#content(b, false);
    if ('components' in b) stored.message.components = this.#components(b);
    stored.message.edited_timestamp = new Date().toISOString();
    stored.versions.push(stored.message.content);
    return stored.message;
  }

  #content(b: Record<string, unknown>, required: boolean): string {
    const content = typeof b.content === 'string' ? b.content : '';
    if (content.length > 2000) throw new HttpError(400, 50035, 'Invalid Form Body (content: Must be 2000 or fewer in length.)');
    if (required && !content && !Array.isArray(b.components)) throw new HttpError(400, 50006, 'Cannot send an empty message');
    return content;
  }

  #components(b: Record<string, unknown>): DComponent[] {
    const rows = Array.isArray(b.components) ? (b.components as DComponent[]) : [];
    if (rows.length > 5) throw new HttpError(400, 50035, 'Invalid Form Body (components: Must be 5 or fewer in length.)');
    const ids = new Set<string>();
    for (const row of rows) {
      if (row.type !== 1 || !Array.isArray(row.components))
        throw new HttpError(400, 50035, 'Invalid Form Body (components: action row expected)');
      if (row.components.length > 5) throw new HttpError(400, 50035, 'Invalid Form Body (components: Must be 5 or fewer in length.)');
      for (const button of row.components) {
        if ((button.label ?? '').length > 80) throw new HttpError(400, 50035, 'Invalid Form Body (label: Must be 80 or fewer in length.)');
        const customId = button.custom_id ?? '';
        if (!customId || customId.length > 100)
          throw new HttpError(400, 50035, 'Invalid Form Body (custom_id: Must be between 1 and 100 in length.)');
        if (ids.has(customId)) throw new HttpError(400, 50035, 'Invalid Form Body (custom_id: Component custom id cannot be duplicated)');
        ids.add(customId);
      }
    }
    return rows;
  }

  #message(author: DUser, channel: DChannel, content: string, components: DComponent[], flags = 0): DMessage {
    return {
      id: snowflake(),
      type: 0,
      channel_id: channel.id,
      ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
      author,
      content,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      components,
      flags,
    };
  }

  /** MESSAGE_CREATE carries channel_type, and in guilds the author's member object (without its user). */
  #withMember(message: DMessage, _author: DUser, channel: DChannel): Record<string, unknown> {
    const event = { ...message, channel_type: channel.type };
    return channel.guild_id ? { ...event, member: messageMember() } : event;
  }
}
