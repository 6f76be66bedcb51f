// A real HTTP server on every loopback address (127.0.0.1 and ::1, one port) that counts the
// requests it receives: whatever notation an SSRF bypass uses to reach loopback, it lands here.
// `/redirect?to=<url>` answers 302 to that URL; `/close` answers with Connection: close.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingServer {
  port: number;
  requests: string[];
  close(): Promise<void>;
}

export async function startCountingServer(): Promise<CountingServer> {
  const requests: string[] = [];
  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    requests.push(req.url ?? '/');
    const url = new URL(req.url ?? '/', 'http://x');
    const to = url.searchParams.get('to');
    if (url.pathname === '/redirect' && to) return void res.writeHead(302, { location: to }).end();
    const headers = { 'content-type': 'text/plain', ...(url.pathname === '/close' ? { connection: 'close' } : {}) };
    res.writeHead(200, headers).end(`inside ${url.pathname}`);
  };
  const v4 = createServer(handler);
  await new Promise<void>((resolve) => v4.listen(0, '127.0.0.1', resolve));
  const port = (v4.address() as AddressInfo).port;
  const v6 = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    v6.once('error', reject);
    v6.listen(port, '::1', resolve);
  });
  const closeOne = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    port,
    requests,
    close: async () => {
      await Promise.all([closeOne(v4), closeOne(v6)]);
    },
  };
}
