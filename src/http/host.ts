// The process's one HTTP listener: a Hono app on @hono/node-server serving /healthz, /readyz and
// whatever the adapters mount (the web console at '/', webhooks at their paths). Mounts are looked
// up on every request, longest prefix first, so an adapter may mount from start(), after the host
// listens (Hono's app.route() would copy routes once, at call time). /readyz names the channels
// only when no other machine reaches the listener, or to a caller with the access token; to anyone
// else it says ready or not, nothing more.
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import type { CoreLogger, HttpHandler, HttpRoutes } from '../core/types.ts';
import { bearerMatches } from './bearer.ts';
import { hostUrl, onlyThisMachine, type HttpConfig } from './config.ts';
import { listenError } from './listen-error.ts';
import { checkReadiness, type ReadinessProbe, type ReadinessReport } from './readiness.ts';

export interface HttpHostOptions extends HttpConfig {
  log: CoreLogger;
  readiness: ReadinessProbe;
  /** Bound of the database ping behind /readyz. */
  readinessTimeoutMs?: number;
}

const RESERVED = ['/healthz', '/readyz'];
const NO_STORE = { 'cache-control': 'no-store' };

function normalisePrefix(prefix: string): string {
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(prefix))
    throw new Error(`http: cannot mount at "${prefix}": expects a path starting with /`);
  return prefix.length > 1 ? prefix.replace(/\/+$/, '') : prefix;
}

function under(path: string, prefix: string): boolean {
  return prefix === '/' || path === prefix || path.startsWith(`${prefix}/`);
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'request headers too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request took too long to arrive'],
};

/** Bytes Node cannot parse as HTTP get a JSON 400 (like everything else here), then the connection closes. */
function answerMalformed(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'malformed HTTP request'];
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export class HttpHost implements HttpRoutes {
  readonly app = new Hono();
  readonly #options: HttpHostOptions;
  readonly #mounts = new Map<string, HttpHandler>();
  #server: Server | undefined;
  #port: number | undefined;
  #databaseWasOk = true;

  constructor(options: HttpHostOptions) {
    this.#options = options;
    this.app.get('/healthz', (c) => c.json({ status: 'ok' }, 200, NO_STORE));
    const detailsForAll = onlyThisMachine(options);
    this.app.get('/readyz', async (c) => {
      const report = await this.#readiness();
      const details = detailsForAll || bearerMatches(c.req.header('authorization'), options.accessToken);
      return c.json(details ? report : { ready: report.ready }, report.ready ? 200 : 503, NO_STORE);
    });
    this.app.all('*', (c) => {
      const handler = this.#handlerFor(c.req.path);
      return handler ? handler(c.req.raw) : c.json({ error: 'not found' }, 404);
    });
    this.app.onError((error, c) => {
      options.log.error({ err: error, method: c.req.method, path: c.req.path }, 'http request failed');
      return c.json({ error: 'internal error (details are in the log)' }, 500);
    });
  }

  /** The listener's address; the real port once it listens (when configured as 0). */
  get url(): string {
    return hostUrl(this.#options.host, this.#port ?? this.#options.port);
  }

  mount(prefix: string, handler: HttpHandler): () => void {
    const key = normalisePrefix(prefix);
    if (RESERVED.includes(key)) throw new Error(`http: ${key} is the host's own; mount elsewhere`);
    if (this.#mounts.has(key)) throw new Error(`http: something is already mounted at ${key}`);
    this.#mounts.set(key, handler);
    return () => {
      if (this.#mounts.get(key) === handler) this.#mounts.delete(key);
    };
  }

  async listen(): Promise<void> {
    const { host, port } = this.#options;
    const server = createAdaptorServer({ fetch: this.app.fetch, overrideGlobalObjects: false }) as Server;
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        server.off('listening', onListening);
        reject(listenError(error, host, port));
      };
      const onListening = () => {
        server.off('error', onError);
        resolve();
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(port, host);
    });
    server.on('error', (error) => this.#options.log.error({ err: error }, 'http server error'));
    server.on('clientError', answerMalformed);
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
  }

  /** Stops listening and ends every open connection (event streams included). */
  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server?.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  #handlerFor(path: string): HttpHandler | undefined {
    let best: string | undefined;
    for (const prefix of this.#mounts.keys()) {
      if (under(path, prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
    }
    return best === undefined ? undefined : this.#mounts.get(best);
  }

  async #readiness(): Promise<ReadinessReport> {
    const report = await checkReadiness(this.#options.readiness, this.#options.readinessTimeoutMs);
    // Probes come every few seconds: say it when the database stops (or starts again) answering, not on every probe.
    const ok = report.database === 'ok';
    if (ok !== this.#databaseWasOk) {
      if (ok) this.#options.log.info({}, 'readiness: the database answers again');
      else this.#options.log.warn({ database: report.database }, 'readiness: the database does not answer');
    }
    this.#databaseWasOk = ok;
    return report;
  }
}
