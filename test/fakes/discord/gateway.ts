// The fake's gateway: one WebSocket endpoint speaking Discord's gateway protocol v10 (JSON): HELLO,
// IDENTIFY → READY + GUILD_CREATE, heartbeats, RESUME (replays what was missed, then RESUMED),
// dispatches with sequence numbers, and the close codes Discord uses for a bad token (4004) and
// privileged intents the application may not use (4014).
import type { Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

const Intent = { Guilds: 1 << 0, GuildMessages: 1 << 9, DirectMessages: 1 << 12, MessageContent: 1 << 15 } as const;

export interface GatewayHooks {
  token(): string;
  /** Whether the application may use the MessageContent intent (Developer Portal switch). */
  messageContentAllowed(): boolean;
  /** READY's `d` plus the GUILD_CREATE payloads to send after it. */
  ready(sessionId: string, resumeUrl: string): { ready: object; guilds: object[] };
}

interface Dispatch {
  s: number;
  t: string;
  d: unknown;
}

export class FakeGateway {
  readonly #wss: WebSocketServer;
  readonly #hooks: GatewayHooks;
  readonly #url: () => string;
  /** Every dispatch of the current session, for RESUME. */
  #log: Dispatch[] = [];
  #seq = 0;
  #sessionId = '';
  #socket: WebSocket | undefined;
  #identified = false;
  identifies = 0;
  resumes = 0;
  heartbeats = 0;
  readonly intents: number[] = [];

  constructor(server: Server, hooks: GatewayHooks, url: () => string) {
    this.#hooks = hooks;
    this.#url = url;
    this.#wss = new WebSocketServer({ server, path: '/gateway' });
    this.#wss.on('connection', (socket) => this.#accept(socket));
  }

  get connected(): boolean {
    return this.#socket !== undefined && this.#identified;
  }

  /** Sends a dispatch now when connected; otherwise it waits in the log for a RESUME. */
  dispatch(t: string, d: unknown): void {
    const event: Dispatch = { s: ++this.#seq, t, d };
    this.#log.push(event);
    if (this.#identified) this.#send({ op: 0, ...event });
  }

  /** Close the connection as a network drop or server restart would (the client resumes). */
  drop(code = 4000): void {
    this.#identified = false;
    this.#socket?.close(code, 'fake: dropped');
    this.#socket = undefined;
  }

  close(): Promise<void> {
    for (const client of this.#wss.clients) client.terminate();
    return new Promise((resolve) => this.#wss.close(() => resolve()));
  }

  #send(payload: object): void {
    this.#socket?.send(JSON.stringify(payload));
  }

  #accept(socket: WebSocket): void {
    this.#socket?.terminate();
    this.#socket = socket;
    this.#identified = false;
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 41_250 }, s: null, t: null }));
    socket.on('message', (data) => this.#receive(socket, data.toString()));
    socket.on('close', () => {
      if (this.#socket === socket) {
        this.#socket = undefined;
        this.#identified = false;
      }
    });
    socket.on('error', () => {});
  }

  #receive(socket: WebSocket, raw: string): void {
    if (socket !== this.#socket) return;
    let frame: { op?: number; d?: Record<string, unknown> | number | null };
    try {
      frame = JSON.parse(raw) as typeof frame;
    } catch {
      socket.close(4002, 'Error while decoding payload.');
      return;
    }
    const d = typeof frame.d === 'object' && frame.d !== null ? frame.d : {};
    switch (frame.op) {
      case 1:
        this.heartbeats++;
        this.#send({ op: 11, d: null, s: null, t: null });
        return;
      case 2:
        this.#identify(socket, d);
        return;
      case 6:
        this.#resume(socket, d);
        return;
      default:
        return;
    }
  }

  #identify(socket: WebSocket, d: Record<string, unknown>): void {
    this.identifies++;
    if (d.token !== this.#hooks.token() && d.token !== `Bot ${this.#hooks.token()}`) {
      socket.close(4004, 'Authentication failed.');
      return;
    }
    const intents = typeof d.intents === 'number' ? d.intents : 0;
    this.intents.push(intents);
    if (intents & Intent.MessageContent && !this.#hooks.messageContentAllowed()) {
      socket.close(4014, 'Disallowed intent(s).');
      return;
    }
    this.#sessionId = `session-${Date.now()}-${this.identifies}`;
    this.#log = [];
    this.#identified = true;
    const { ready, guilds } = this.#hooks.ready(this.#sessionId, this.#url());
    this.dispatch('READY', ready);
    for (const guild of guilds) this.dispatch('GUILD_CREATE', guild);
  }

  #resume(_socket: WebSocket, d: Record<string, unknown>): void {
    this.resumes++;
    if (d.token !== this.#hooks.token() || d.session_id !== this.#sessionId) {
      this.#send({ op: 9, d: false, s: null, t: null });
      return;
    }
    const seq = typeof d.seq === 'number' ? d.seq : 0;
    this.#identified = true;
    for (const event of this.#log.filter((e) => e.s > seq)) this.#send({ op: 0, ...event });
    this.dispatch('RESUMED', {});
  }
}
