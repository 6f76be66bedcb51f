// Wake-ups between processes over PostgreSQL LISTEN/NOTIFY: one dedicated `pg` client per process
// listens (idle, it sends nothing); notifications are sent through the store's pool. When the
// listener loses its connection it reconnects with backoff and, only while disconnected, emits a
// slow `resync` so that nothing waits forever on a notification it could not hear.
import type pg from 'pg';
import type { Logger } from '../log.ts';
import { parseWakeup, WakeupHub, type Wakeup, type WakeupEvent, type Wakeups } from './wakeups.ts';

export const WAKEUP_CHANNEL = 'parley_wakeups';

const CHECK_TIMEOUT_MS = 5_000;

export interface PgWakeupsOptions {
  url: string;
  /** Sends one NOTIFY through the store (counted like any other statement). */
  notify(channel: string, payload: string): Promise<void>;
  log: Logger;
  /** How often the safety `resync` fires while the listener is disconnected. */
  safetyPollMs?: number;
  maxBackoffMs?: number;
}

export class PgWakeups implements Wakeups {
  readonly #o: PgWakeupsOptions;
  readonly #hub = new WakeupHub();
  #client: pg.Client | undefined;
  #connected = false;
  #checking = false;
  #stopped = false;
  #backoffMs = 250;
  #reconnect: NodeJS.Timeout | undefined;
  #safetyPoll: NodeJS.Timeout | undefined;

  constructor(options: PgWakeupsOptions) {
    this.#o = options;
  }

  get connected(): boolean {
    return this.#connected;
  }

  subscribe(handler: (event: WakeupEvent) => void): () => void {
    return this.#hub.subscribe(handler);
  }

  async publish(wakeup: Wakeup): Promise<void> {
    try {
      await this.#o.notify(WAKEUP_CHANNEL, JSON.stringify(wakeup));
    } catch (error) {
      // Receivers that missed it catch up when they resync (their listener lost the database too).
      this.#o.log.warn({ err: error, wakeup: wakeup.kind }, 'could not send a wake-up');
    }
  }

  /**
   * One round trip on the listening connection (run with the heartbeat): a connection that died
   * silently (a half-open TCP connection after a network cut) would otherwise hear nothing and
   * never know it.
   */
  async check(): Promise<void> {
    const client = this.#client;
    if (!client || this.#checking) return;
    this.#checking = true;
    try {
      await client.query('SELECT 1');
    } catch (error) {
      this.#o.log.warn({ err: error }, 'the wake-up listener stopped answering; reconnecting');
      this.#lost(client);
    } finally {
      this.#checking = false;
    }
  }

  /** Connects the listener; if the database is unreachable now, keeps trying in the background. */
  async start(): Promise<void> {
    this.#stopped = false;
    if (!(await this.#connect())) this.#disconnected();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#reconnect);
    clearInterval(this.#safetyPoll);
    this.#safetyPoll = undefined;
    const client = this.#client;
    this.#client = undefined;
    this.#connected = false;
    await client?.end().catch(() => {});
  }

  async #connect(): Promise<boolean> {
    // Loaded here, so that importing this file (app.ts does) does not load pg on SQLite.
    const { default: pgModule } = await import('pg');
    // The timeouts bound check() and a connect into a dead network: replaced and retried, not waited on.
    const client: pg.Client = new pgModule.Client({
      connectionString: this.#o.url,
      keepAlive: true,
      query_timeout: CHECK_TIMEOUT_MS,
      connectionTimeoutMillis: CHECK_TIMEOUT_MS,
    });
    client.on('notification', (message) => {
      if (message.channel !== WAKEUP_CHANNEL) return;
      const wakeup = parseWakeup(message.payload);
      if (wakeup) this.#hub.emit(wakeup);
    });
    client.on('error', (error) => {
      this.#o.log.warn({ err: error }, 'the wake-up listener lost its database connection; reconnecting');
      this.#lost(client);
    });
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKEUP_CHANNEL}`);
    } catch (error) {
      this.#o.log.debug({ err: error }, 'wake-up listener could not connect');
      await client.end().catch(() => {});
      return false;
    }
    if (this.#stopped) {
      await client.end().catch(() => {});
      return true;
    }
    this.#client = client;
    const wasDown = this.#safetyPoll !== undefined;
    this.#connected = true;
    this.#backoffMs = 250;
    clearInterval(this.#safetyPoll);
    this.#safetyPoll = undefined;
    // Whatever was notified while we could not listen is found by one look at the database.
    if (wasDown) this.#hub.emit({ kind: 'resync' });
    return true;
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#connected = false;
    void client.end().catch(() => {});
    this.#disconnected();
  }

  #disconnected(): void {
    if (this.#stopped) return;
    this.#safetyPoll ??= setInterval(() => this.#hub.emit({ kind: 'resync' }), this.#o.safetyPollMs ?? 5_000);
    clearTimeout(this.#reconnect);
    this.#reconnect = setTimeout(() => {
      void this.#connect().then((ok) => {
        if (!ok) {
          this.#backoffMs = Math.min(this.#backoffMs * 2, this.#o.maxBackoffMs ?? 5_000);
          this.#disconnected();
        }
      });
    }, this.#backoffMs);
  }
}
