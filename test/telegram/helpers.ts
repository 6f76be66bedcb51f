// Shared set-up for the Telegram suites: the fake Bot API, the real adapter (real grammY client)
// configured from environment variables, and the real core (createHarness) on a temp database.
import type { AnyTool } from '../../src/agent/tools.ts';
import type { CoreLogger } from '../../src/core/types.ts';
import { TelegramAdapter } from '../../adapters/telegram/adapter.ts';
import { loadTelegramConfig } from '../../adapters/telegram/config.ts';
import { HttpHost } from '../../src/http/host.ts';
import { silentLogger } from '../../src/log.ts';
import { FakeTelegram, type StoredMessage, type TgChat } from '../fakes/telegram/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { createHarness, waitFor, type Harness } from '../helpers/harness.ts';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: object;
  msg: string | undefined;
}

/** A logger that keeps every line, to check what was logged and that the token never was. */
export class RecordingLogger implements CoreLogger {
  readonly lines: LogLine[] = [];
  debug(obj: object, msg?: string): void {
    this.lines.push({ level: 'debug', obj, msg });
  }
  info(obj: object, msg?: string): void {
    this.lines.push({ level: 'info', obj, msg });
  }
  warn(obj: object, msg?: string): void {
    this.lines.push({ level: 'warn', obj, msg });
  }
  error(obj: object, msg?: string): void {
    this.lines.push({ level: 'error', obj, msg });
  }
  text(): string {
    return this.lines.map((l) => `${l.level} ${l.msg ?? ''} ${JSON.stringify(l.obj)}`).join('\n');
  }
}

export interface TelegramSetup {
  tg: FakeTelegram;
  /** The one HTTP listener the adapter's routes are mounted on. */
  http: HttpHost;
  adapter: TelegramAdapter;
  h: Harness;
  model: FakeModelServer;
  log: RecordingLogger;
  close(): Promise<void>;
}

export interface SetupOptions {
  env?: Record<string, string>;
  /** Core env (PARLEY_*). */
  coreEnv?: Record<string, string>;
  tools?: AnyTool[];
  tg?: FakeTelegram;
  /** Close `tg` with the rest (default: only when created here). */
  closeTg?: boolean;
  model?: FakeModelServer;
  dbFile?: string;
  /** The core's database (default: a temporary SQLite file). */
  databaseUrl?: string;
  /** Webhook mode: TELEGRAM_WEBHOOK_URL is the HTTP listener's address with this path. */
  webhookPath?: string;
}

const open: (() => Promise<void>)[] = [];

export async function startTelegram(options: SetupOptions = {}): Promise<TelegramSetup> {
  const tg = options.tg ?? (await FakeTelegram.start());
  const model = options.model ?? (await FakeModelServer.start());
  const log = new RecordingLogger();
  // As npm start wires it: the listener first, the adapter's routes on it, then the app.
  const http = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    log: silentLogger,
    readiness: { pingDatabase: async () => {}, channels: ['telegram'], phase: () => 'started' },
  });
  await http.listen();
  const config = loadTelegramConfig({
    TELEGRAM_BOT_TOKEN: tg.token,
    TELEGRAM_API_ROOT: tg.apiRoot,
    TELEGRAM_EDIT_INTERVAL_PRIVATE: '40ms',
    TELEGRAM_EDIT_INTERVAL_GROUP: '60ms',
    ...(options.webhookPath ? { TELEGRAM_WEBHOOK_URL: `${http.url}${options.webhookPath}` } : {}),
    ...options.env,
  });
  if (!config) throw new Error('telegram config expected');
  const adapter = new TelegramAdapter({ config, log });
  adapter.routes(http);
  const h = await createHarness({
    adapters: [adapter],
    model,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.coreEnv ? { env: options.coreEnv } : {}),
    ...(options.dbFile ? { dbFile: options.dbFile } : {}),
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await h.close();
    await http.close();
    if (!options.model) await model.close();
    if (!options.tg || options.closeTg) await tg.close();
  };
  open.push(close);
  return { tg, http, adapter, h, model, log, close };
}

export async function closeTelegram(): Promise<void> {
  while (open.length) await open.pop()!().catch(() => {});
}

/** Bot messages in a chat once at least `count` exist. */
export function botMessages(tg: FakeTelegram, chat: TgChat, count = 1): Promise<StoredMessage[]> {
  return waitFor(() => {
    const messages = tg.botMessages(chat);
    return messages.length >= count ? messages : undefined;
  }, `${count} bot message(s) in chat ${chat.id}`);
}

export function sessionKey(chat: TgChat, topic?: number): string {
  return topic === undefined ? `telegram:${chat.id}` : `telegram:${chat.id}:${topic}`;
}

/**
 * Waits until the bot has confirmed every queued update. grammY confirms a batch (the offset of
 * its next getUpdates) only after handling it, so by then the core has taken or dropped each one.
 */
export async function drained(tg: FakeTelegram): Promise<void> {
  await waitFor(() => tg.world.queue.length === 0 && tg.world.redeliveries.length === 0, 'the bot to confirm every update');
}
