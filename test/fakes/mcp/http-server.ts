// The notes MCP server over HTTP on 127.0.0.1, run as a child process:
// `node test/fakes/mcp/http-server.ts [--sse] [--no-get] [--port N]`. Streamable HTTP at /mcp (one
// session, and one McpServer, per client; an unknown session id gets 404 as the spec says;
// --no-get: no standalone event stream, GET answers 405, so a client cannot tell the server went
// away until its next request), or with --sse only the old HTTP+SSE transport (GET /sse, POST
// /messages), which rejects POST /mcp with 405.
// Prints "listening <port>" on stdout once it accepts connections.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createNotesServer, logRequests, record } from './notes-server.ts';

const legacy = process.argv.includes('--sse');
const noGet = process.argv.includes('--no-get');
const portArg = process.argv.indexOf('--port');
const port = portArg > 0 ? Number(process.argv[portArg + 1]) : 0;
const streamable = new Map<string, StreamableHTTPServerTransport>();
const sse = new Map<string, SSEServerTransport>();

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

function reply(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function handleStreamable(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const sessionId = req.headers['mcp-session-id'];
  if (noGet && req.method === 'GET') return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
  const body = req.method === 'POST' ? await readJson(req) : undefined;
  if (typeof sessionId === 'string') {
    const transport = streamable.get(sessionId);
    if (!transport) return reply(res, 404, 'Session not found');
    return transport.handleRequest(req, res, body);
  }
  if (req.method !== 'POST' || !isInitializeRequest(body)) return reply(res, 400, 'No session id');
  record({ header: req.headers['x-test-header'] ?? null });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void streamable.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) streamable.delete(transport.sessionId);
  };
  await createNotesServer('notes-http').connect(transport);
  logRequests(transport);
  await transport.handleRequest(req, res, body);
}

async function handleLegacy(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (req.method === 'GET' && url.pathname === '/sse') {
    const transport = new SSEServerTransport('/messages', res);
    sse.set(transport.sessionId, transport);
    res.on('close', () => sse.delete(transport.sessionId));
    await createNotesServer('notes-sse').connect(transport);
    logRequests(transport);
    return;
  }
  if (req.method === 'POST' && url.pathname === '/messages') {
    const transport = sse.get(url.searchParams.get('sessionId') ?? '');
    if (!transport) return reply(res, 404, 'Session not found');
    return transport.handlePostMessage(req, res, await readJson(req));
  }
  res.writeHead(url.pathname === '/mcp' ? 405 : 404).end();
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const handled = legacy
    ? handleLegacy(req, res, url)
    : url.pathname === '/mcp'
      ? handleStreamable(req, res)
      : Promise.resolve(void res.writeHead(404).end());
  handled.catch((error: unknown) => {
    if (!res.headersSent) reply(res, 500, String(error));
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
