// One configured MCP server over its whole life: connect, list its tools (again on
// notifications/tools/list_changed), reconnect with backoff when it dies or stops answering, and
// run calls — each bounded by the caller's signal (the tool timeout and /stop), which the SDK
// turns into notifications/cancelled for the server.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../config-file/schema.ts';
import { errorText } from '../core/errors.ts';
import type { Logger } from '../log.ts';
import { loggable } from './loggable.ts';
import { redactor, type Redact } from './redact.ts';
import { openSession, processId, type OpenSession, type TransportKind } from './transport.ts';

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'stopped';

export interface ConnectionOptions {
  server: McpServerConfig;
  log: Logger;
  /** Called with the server's tools after every (re)connection and list change. */
  onTools(tools: Tool[]): void;
  /** Bound of one connection attempt (spawn/handshake + tool list). */
  connectTimeoutMs?: number;
  /** Delay before reconnecting: doubles per failure up to maxMs (±20 % jitter). */
  retry?: { initialMs: number; maxMs: number };
  /** A connection that lived this long resets the backoff. */
  stableMs?: number;
  /** How long a call waits for a server that is (re)connecting. */
  readyWaitMs?: number;
}

/** The server cannot take calls right now; the message says why, for the model and the log. */
export class McpUnavailableError extends Error {
  override name = 'McpUnavailableError';
}

const MAX_PAGES = 100;
const STDERR_LINES = 20;
const STDERR_LINE_CHARS = 300;
const CLOSE_MS = 1_000;
const REFRESH_WAIT_MS = 5_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Closes a session within `ms`; a stdio server that does not exit on end-of-input is killed. */
async function closeSession(session: OpenSession, ms = CLOSE_MS): Promise<void> {
  const pid = processId(session);
  await Promise.race([session.client.close().catch(() => {}), sleep(ms)]);
  if (pid === undefined || !alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  await sleep(200);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

async function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  const tools = new Map<string, Tool>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    for (const tool of result.tools) if (!tools.has(tool.name)) tools.set(tool.name, tool);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return [...tools.values()];
}

/** An answer from the server itself (it ran and refused), not a failure to reach it. */
export function isServerAnswer(error: unknown): boolean {
  return error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout;
}

/** Streamable HTTP: 404 for our session id means the server restarted; the request never ran. */
function isSessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

export class McpConnection {
  readonly name: string;
  /** Hides the entry's `${VAR}` secrets in whatever the server says. */
  readonly redact: Redact;
  readonly #o: ConnectionOptions;
  readonly #log: Logger;
  #state: ConnectionState = 'connecting';
  #session: OpenSession | undefined;
  #opening: Client | undefined;
  #tools: Tool[] = [];
  #lastError: string | undefined;
  #failures = 0;
  #connectedAt = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #nextRetryAt: number | undefined;
  readonly #waiters = new Set<() => void>();
  readonly #closedEarly = new WeakSet<Client>();
  readonly #stderr: string[] = [];
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;
  #checking = false;
  #firstAttempt: Promise<void> | undefined;

  constructor(options: ConnectionOptions) {
    this.#o = options;
    this.name = options.server.name;
    this.redact = redactor(options.server.secrets);
    this.#log = options.log.child({ mcpServer: this.name });
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get tools(): Tool[] {
    return this.#tools;
  }

  get lastError(): string | undefined {
    return this.#lastError;
  }

  get transport(): TransportKind | undefined {
    return this.#session?.kind;
  }

  get pid(): number | undefined {
    return this.#session ? processId(this.#session) : undefined;
  }

  /** Starts connecting; resolves once the first attempt succeeded or failed (retries continue). */
  start(): Promise<void> {
    this.#firstAttempt ??= this.#connect();
    return this.#firstAttempt;
  }

  async stop(): Promise<void> {
    this.#state = 'stopped';
    clearTimeout(this.#retryTimer);
    this.#wake();
    const session = this.#session;
    this.#session = undefined;
    await Promise.all([session && closeSession(session), this.#opening?.close().catch(() => {})]);
  }

  /** Runs one tool call. Throws McpUnavailableError, the SDK's errors, or the signal's reason. */
  async call(name: string, args: unknown, options: { signal: AbortSignal; timeoutMs: number }): Promise<CallToolResult> {
    const result = await this.#call(name, args, options);
    // A call that changed the tool list (the server notifies before it answers): the model's next
    // round should already see the new list.
    if (this.#refreshing) await Promise.race([this.#refreshing, sleep(REFRESH_WAIT_MS)]);
    return result;
  }

  async #call(name: string, args: unknown, options: { signal: AbortSignal; timeoutMs: number }): Promise<CallToolResult> {
    let session = await this.#ready(options.signal);
    try {
      return await this.#request(session, name, args, options);
    } catch (error) {
      if (options.signal.aborted || !isSessionGone(error)) {
        this.#afterFailure(session, error, options.signal);
        throw error;
      }
    }
    this.#log.info('the server forgot our session (it restarted?); reconnecting and sending the call again');
    this.#lastError = 'the server no longer knew our session';
    await closeSession(session);
    session = await this.#ready(options.signal);
    try {
      return await this.#request(session, name, args, options);
    } catch (error) {
      this.#afterFailure(session, error, options.signal);
      throw error;
    }
  }

  /** Lists the tools again (serialised: a change during a listing lists once more after it). */
  refresh(): Promise<void> {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    this.#refreshing = (async () => {
      do {
        this.#refreshAgain = false;
        const session = this.#session;
        if (!session) return;
        try {
          const tools = await listAllTools(session.client, this.#connectTimeout());
          if (this.#session !== session) return;
          this.#tools = tools;
          this.#log.info({ tools: tools.length }, 'MCP tool list changed');
          this.#o.onTools(tools);
        } catch (error) {
          this.#log.warn({ err: loggable(error, this.redact) }, 'could not list the MCP server tools again; keeping the previous list');
        }
      } while (this.#refreshAgain);
    })().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** (A method, not a comparison, so it is read again after each await.) */
  #isStopped(): boolean {
    return this.#state === 'stopped';
  }

  #connectTimeout(): number {
    return this.#o.connectTimeoutMs ?? 60_000;
  }

  #request(
    session: OpenSession,
    name: string,
    args: unknown,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    const params = { name, arguments: (args ?? {}) as Record<string, unknown> };
    // The caller's signal carries the real timeout; the SDK's own is only a backstop.
    return session.client.callTool(params, undefined, {
      signal: options.signal,
      timeout: options.timeoutMs + 1_000,
    }) as Promise<CallToolResult>;
  }

  /** After a failed call: unless the server answered, check it still does; if not, reconnect. */
  #afterFailure(session: OpenSession, error: unknown, signal: AbortSignal): void {
    if (signal.aborted || isServerAnswer(error)) return;
    this.#check(session, this.redact(errorText(error)));
  }

  #check(session: OpenSession, why: string): void {
    if (this.#checking || this.#session !== session) return;
    this.#checking = true;
    session.client
      .ping({ timeout: 3_000 })
      .catch(async () => {
        if (this.#session !== session) return;
        this.#log.warn({ reason: why }, 'the MCP server stopped answering; reconnecting');
        this.#lastError = `the server stopped answering (${why})`;
        await closeSession(session);
      })
      .finally(() => {
        this.#checking = false;
      });
  }

  async #ready(signal: AbortSignal): Promise<OpenSession> {
    if (this.#state === 'connected' && this.#session) return this.#session;
    if (this.#state !== 'stopped' && this.#retryTimer) {
      // Someone needs the server now: try at once instead of waiting out the backoff.
      clearTimeout(this.#retryTimer);
      this.#retryTimer = undefined;
      void this.#connect();
    }
    if (this.#state !== 'stopped') {
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          this.#waiters.delete(done);
          resolve();
        };
        const onAbort = () => {
          done();
          reject(signal.reason);
        };
        const timer = setTimeout(done, this.#o.readyWaitMs ?? 10_000);
        this.#waiters.add(done);
        signal.addEventListener('abort', onAbort, { once: true });
        if (signal.aborted) onAbort();
      });
    }
    if (this.#state === 'connected' && this.#session) return this.#session;
    throw new McpUnavailableError(this.#unavailable());
  }

  #unavailable(): string {
    if (this.#state === 'stopped') return `MCP server "${this.name}" is stopped.`;
    const reason = this.#lastError ? `: ${this.#lastError}` : ' (still connecting)';
    const next = this.#nextRetryAt
      ? ` Parley reconnects automatically (next attempt in ${Math.max(1, Math.round((this.#nextRetryAt - Date.now()) / 1000))} s).`
      : '';
    return `MCP server "${this.name}" is not available${reason}.${next}`;
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  #stderrLine(raw: string): void {
    // Redacted before it is cut: a cut secret would no longer match. (The transport cuts lines at
    // 4,000 characters, far past what is kept here.)
    const redacted = this.redact(raw);
    const line = redacted.length > STDERR_LINE_CHARS ? `${redacted.slice(0, STDERR_LINE_CHARS)}…` : redacted;
    this.#log.debug({ stderr: line }, 'MCP server stderr');
    this.#stderr.push(line);
    if (this.#stderr.length > STDERR_LINES) this.#stderr.shift();
  }

  #stderrHint(): string {
    const last = this.#stderr.at(-1);
    return last ? ` (last output: ${last})` : '';
  }

  async #connect(): Promise<void> {
    this.#retryTimer = undefined;
    this.#nextRetryAt = undefined;
    if (this.#state === 'stopped' || this.#opening) return;
    this.#stderr.length = 0;
    let session: OpenSession | undefined;
    try {
      session = await openSession(this.#o.server, {
        timeoutMs: this.#connectTimeout(),
        onStderr: (line) => this.#stderrLine(line),
        prepare: (client) => {
          this.#opening = client;
          client.onclose = () => this.#closed(client);
          client.onerror = (error) => this.#transportError(client, error);
          client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
            if (this.#session?.client === client) await this.refresh();
          });
        },
      });
      const tools = await listAllTools(session.client, this.#connectTimeout());
      if (this.#closedEarly.has(session.client)) throw new Error('the server closed the connection');
      if (this.#isStopped()) {
        await closeSession(session);
        return;
      }
      this.#session = session;
      this.#tools = tools;
      this.#state = 'connected';
      this.#connectedAt = Date.now();
      this.#lastError = undefined;
      this.#log.info({ tools: tools.length, transport: session.kind, pid: processId(session) }, 'MCP server connected');
      this.#o.onTools(tools);
    } catch (error) {
      if (session) await closeSession(session);
      this.#failures++;
      this.#lastError = `${this.redact(errorText(error))}${this.#stderrHint()}`;
      if (!this.#isStopped()) {
        this.#state = 'reconnecting';
        this.#log.warn({ err: loggable(error, this.redact), failures: this.#failures }, `could not connect to MCP server "${this.name}"`);
        this.#scheduleRetry();
      }
    } finally {
      this.#opening = undefined;
      this.#wake();
    }
  }

  #closed(client: Client): void {
    if (this.#session?.client !== client) {
      this.#closedEarly.add(client);
      return;
    }
    this.#session = undefined;
    if (this.#state === 'stopped') return;
    this.#failures = Date.now() - this.#connectedAt >= (this.#o.stableMs ?? 30_000) ? 0 : this.#failures + 1;
    this.#lastError ??= `the server closed the connection${this.#stderrHint()}`;
    this.#state = 'reconnecting';
    this.#log.warn({ reason: this.#lastError }, `MCP server "${this.name}" went away; reconnecting`);
    this.#scheduleRetry();
  }

  #transportError(client: Client, error: Error): void {
    this.#log.debug({ err: loggable(error, this.redact) }, 'MCP transport error');
    if (this.#session?.client === client) this.#check(this.#session, this.redact(error.message));
  }

  #scheduleRetry(): void {
    const { initialMs, maxMs } = this.#o.retry ?? { initialMs: 500, maxMs: 30_000 };
    const base = Math.min(maxMs, initialMs * 2 ** Math.max(0, this.#failures - 1));
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.#nextRetryAt = Date.now() + delay;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => void this.#connect(), delay);
    this.#retryTimer.unref();
  }
}
