// The model client's transport (src/llm/model-transport.ts) against a plain HTTP server on 127.0.0.1:
// what fetch would do, as far as the chat stream relies on it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelTransport } from '../../src/llm/model-transport.ts';

const never = new AbortController().signal;

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let handler: Handler = (_req, res) => res.end();
let server: Server;
let base: string;
const closed: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handler(req, res, body));
    res.on('close', () => closed.push(req.url ?? ''));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  const done = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections(); // the transport keeps connections alive
  await done;
});

describe('model transport', () => {
  it('sends the method, headers and body, and hands each part of the answer on as it arrives', async () => {
    let seen: { method?: string; auth?: string; type?: string; body?: string } = {};
    let sendRest: () => void = () => {};
    handler = (req, res, body) => {
      seen = { method: req.method, auth: req.headers.authorization, type: req.headers['content-type'], body };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      sendRest = () => res.end('data: rest\n\n');
    };
    const response = await modelTransport().post(
      `${base}/v1/chat/completions`,
      { authorization: 'Bearer k', 'content-type': 'application/json' },
      '{"model":"m"}',
      never,
    );
    expect(seen).toEqual({ method: 'POST', auth: 'Bearer k', type: 'application/json', body: '{"model":"m"}' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const parts = response.body![Symbol.asyncIterator]();
    // The first part is readable while the server still holds the rest back.
    expect(String((await parts.next()).value)).toBe('data: first\n\n');
    sendRest();
    expect(String((await parts.next()).value)).toBe('data: rest\n\n');
    expect((await parts.next()).done).toBe(true);
  });

  it('decodes a compressed answer, and follows a redirect that keeps the request', async () => {
    handler = (req, res, body) => {
      if (req.url === '/old') {
        res.writeHead(307, { location: '/new' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ got: body, at: req.url })));
    };
    const response = await modelTransport().post(`${base}/old`, {}, 'hello', never);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(await response.text())).toEqual({ got: 'hello', at: '/new' });
  });

  it('gives error answers with their status and text, and no body where there is none', async () => {
    handler = (req, res) => {
      if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
        return;
      }
      res.writeHead(429, { 'retry-after': '3', 'set-cookie': ['a=1', 'b=2'] });
      res.end('slow down');
    };
    const transport = modelTransport();
    const busy = await transport.post(`${base}/busy`, {}, '{}', never);
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('3');
    expect(busy.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await busy.text()).toBe('slow down');
    const empty = await transport.post(`${base}/empty`, {}, '{}', never);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeUndefined();
  });

  it('stops a request when its signal aborts, before the answer or in the middle of it', async () => {
    handler = (req, res) => {
      if (req.url === '/never') return;
      res.writeHead(200);
      res.write('part');
    };
    const transport = modelTransport();
    const early = new AbortController();
    const pending = transport.post(`${base}/never`, {}, '{}', early.signal);
    setTimeout(() => early.abort(new Error('stopped early')), 50);
    await expect(pending).rejects.toThrow('stopped early');

    const late = new AbortController();
    const response = await transport.post(`${base}/midway`, {}, '{}', late.signal);
    const parts = response.body![Symbol.asyncIterator]();
    expect(String((await parts.next()).value)).toBe('part');
    late.abort(new Error('stopped midway'));
    await expect(parts.next()).rejects.toThrow();
    await expect.poll(() => closed).toContain('/midway');
    expect(closed).toContain('/never');
  });

  it('goes through HTTP_PROXY when NODE_USE_ENV_PROXY asks for it, as the global fetch would', async () => {
    const tunnels: string[] = [];
    const sockets: { destroy(): void }[] = [];
    const proxy = createServer((_req, res) => res.writeHead(502).end());
    proxy.on('connect', (req: IncomingMessage, client, head: Buffer) => {
      tunnels.push(req.url ?? '');
      sockets.push(client);
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host!, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const saved = { use: process.env.NODE_USE_ENV_PROXY, http: process.env.HTTP_PROXY, no: process.env.NO_PROXY };
    Object.assign(process.env, {
      NODE_USE_ENV_PROXY: '1',
      HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      NO_PROXY: '',
    });
    try {
      handler = (_req, res, body) => res.end(`proxied ${body}`);
      const response = await modelTransport().post(`${base}/v1/chat/completions`, {}, 'hi', never);
      expect(await response.text()).toBe('proxied hi');
      expect(tunnels).toEqual([base.replace('http://', '')]);
    } finally {
      for (const [key, value] of [
        ['NODE_USE_ENV_PROXY', saved.use],
        ['HTTP_PROXY', saved.http],
        ['NO_PROXY', saved.no],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      for (const socket of sockets) socket.destroy(); // tunnels are the server's no longer
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});
