// The console's HTTP server: the page, its assets and the API, behind the access guard. Every
// failure becomes a JSON error with a 4xx/5xx status; nothing a client sends can crash it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CoreLogger } from '../../src/core/types.ts';
import type { AccessGuard } from './access.ts';
import { apiRoutes, methodNotAllowed, type ConsoleBackend } from './api.ts';
import type { Asset } from './assets.ts';
import { consoleUrl } from './config.ts';
import { HttpError, sendError } from './http.ts';

export interface WebServerOptions {
  guard: AccessGuard;
  backend: ConsoleBackend;
  assets: Map<string, Asset>;
  log: CoreLogger;
}

const SECURITY_HEADERS: Record<string, string> = {
  // No inline script or style, nothing from elsewhere: even if escaping failed, injected markup could not run.
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

function sendAsset(res: ServerResponse, asset: Asset): void {
  res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'no-cache' });
  res.end(asset.body);
}

export function createWebServer(options: WebServerOptions): Server {
  const { guard, assets, log } = options;
  const routes = apiRoutes(options.backend);

  const servePage = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const page = assets.get('index.html')!;
    const offered = url.searchParams.get('token');
    if (guard.required && offered !== null) {
      if (!guard.matches(offered)) throw new HttpError(401, 'wrong access token');
      // Trade the token in the address for a cookie, and drop it from the address bar and history.
      url.searchParams.delete('token');
      res.writeHead(303, { location: `${url.pathname}${url.search}`, 'set-cookie': guard.cookieFor(offered), 'cache-control': 'no-store' });
      res.end();
      return;
    }
    if (!guard.allows(req)) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('Parley web console: access token required. Open this page once with ?token=<PARLEY_WEB_TOKEN> added to its address.\n');
      return;
    }
    sendAsset(res, page);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    if (!guard.hostAllowed(req)) throw new HttpError(403, 'this console answers only to localhost or 127.0.0.1');
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const method = req.method ?? 'GET';

    if (url.pathname === '/' || url.pathname === '/index.html') {
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(['GET']);
      return servePage(req, res, url);
    }
    if (url.pathname.startsWith('/assets/')) {
      const asset = assets.get(url.pathname.slice('/assets/'.length));
      if (!asset || asset === assets.get('index.html')) throw new HttpError(404, 'not found');
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(['GET']);
      return sendAsset(res, asset);
    }
    const route = routes[url.pathname];
    if (!route) throw new HttpError(404, 'not found');
    const handler = route[method as 'GET' | 'POST'];
    if (!handler) throw methodNotAllowed(Object.keys(route));
    if (!guard.allows(req)) throw new HttpError(401, 'access token required (Authorization: Bearer <token>, or the page cookie)');
    await handler(req, res, url);
  };

  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) {
        // An unread (e.g. oversized) body would otherwise be parsed as the next request on this connection.
        const headers = req.complete ? error.headers : { ...error.headers, connection: 'close' };
        sendError(res, error.status, error.message, headers);
        return;
      }
      if (req.destroyed || res.destroyed) return; // the client went away mid-request: nobody to answer
      log.error({ err: error, method: req.method, url: req.url }, 'web console request failed');
      sendError(res, 500, 'internal error (details are in the log)');
    });
  });
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = consoleUrl(host, port);
  switch (error.code) {
    case 'EADDRINUSE':
      return new Error(`web console: ${where} is already in use; set PARLEY_WEB_PORT to a free port (or PARLEY_WEB=off)`);
    case 'EACCES':
      return new Error(`web console: no permission to listen on ${where}; set PARLEY_WEB_PORT to a port above 1023`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new Error(`web console: ${host} is not an address of this machine; check PARLEY_WEB_HOST`);
    default:
      return new Error(`web console: cannot listen on ${where}: ${error.message}`);
  }
}

/** Starts listening; rejects with one clear line when the address cannot be used. */
export async function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
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
  return server.address() as AddressInfo;
}

export async function close(server: Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}
