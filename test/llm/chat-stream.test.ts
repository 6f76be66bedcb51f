// The model client on the wire, against a plain HTTP server on 127.0.0.1 that writes server-sent
// events byte by byte as a test says: what real servers send that the scripted fake does not
// (errors inside the stream, CRLF lines, keep-alive comments, characters split across writes).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatEndpoint } from '../../src/llm/chat-stream.ts';
import { createLlmClient } from '../../src/llm/client.ts';
import { llmFailure } from '../helpers/llm-failure.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
let handler: Handler = (_req, res) => void res.end();
let server: Server;
let base: string;
const seen: IncomingMessage[] = [];
let connections = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req);
    req.resume();
    req.on('end', () => void handler(req, res));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  const done = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await done;
});

const client = () => createLlmClient({ baseUrl: base, apiKey: 'k', model: 'm', timeoutMs: 5_000, maxRetries: 0 });
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
const chunk = (delta: object, finish: string | null = null) => JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] });

/** Answers with these pieces, each its own write, a tick apart. */
function streams(...pieces: (string | Buffer)[]): Handler {
  return async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of pieces) {
      res.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    res.end();
  };
}

describe('chat stream on the wire', () => {
  it('reads CRLF lines, keep-alive comments and a character split across writes, and stops at [DONE]', async () => {
    const event = Buffer.from(`data: ${chunk({ content: 'héllo ✓' })}\r\n\r\n`);
    const cut = event.indexOf(Buffer.from('✓')) + 1; // inside the three bytes of ✓
    handler = streams(
      ': keep-alive\r\n\r\n',
      event.subarray(0, cut),
      event.subarray(cut),
      `data: ${chunk({}, 'stop')}\r\n\r\n`,
      'data: [DONE]\r\n\r\n',
      'data: not json, and after the end\n\n',
    );
    const result = await client().complete(ask);
    expect(result).toMatchObject({ text: 'héllo ✓', finishReason: 'stop' });
  });

  it('keeps one connection across answers whose body ends a moment after [DONE]', async () => {
    let tailSent: Promise<void> = Promise.resolve();
    handler = async (_req, res) => {
      let sent = () => {};
      tailSent = new Promise((resolve) => {
        sent = resolve;
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${chunk({ content: 'ok' }, 'stop')}\n\ndata: [DONE]\n\n`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      res.end(': bye\n\n', sent);
    };
    const llm = client();
    // Waits for the server to have sent the tail (not for a fixed time: a loaded machine runs the
    // server's 30 ms timer late), then lets the client read it and put the socket back in the pool.
    const settle = async () => {
      await tailSent;
      await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await llm.complete(ask); // the first one connects
    await settle();
    const before = connections;
    for (let i = 0; i < 3; i++) {
      expect((await llm.complete(ask)).text).toBe('ok');
      await settle();
    }
    expect(connections).toBe(before);
  });

  it('sends the headers the SDK sends, with the organization and project when set', async () => {
    handler = streams(`data: ${chunk({ content: 'ok' }, 'stop')}\n\n`);
    await client().complete(ask);
    const request = seen.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/v1/chat/completions');
    expect(request.headers).toMatchObject({ authorization: 'Bearer k', 'content-type': 'application/json', accept: 'application/json' });
    expect(chatEndpoint({ baseUrl: `${base}/` }, { OPENAI_ORG_ID: 'org-1', OPENAI_PROJECT_ID: 'proj-1' })).toMatchObject({
      url: `${base}/chat/completions`,
      headers: { 'openai-organization': 'org-1', 'openai-project': 'proj-1' },
    });
    expect(chatEndpoint({}, {}).url).toBe('https://api.openai.com/v1/chat/completions');
  });

  it('turns an error sent inside the stream into an error naming it', async () => {
    handler = streams(
      `data: ${chunk({ content: 'par' })}\n\n`,
      `data: ${JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error' } })}\n\n`,
    );
    const inData = await llmFailure(client().complete(ask));
    expect(inData.kind).toBe('other');
    expect(inData.message).toContain('upstream overloaded');

    handler = streams(`event: error\ndata: ${JSON.stringify({ message: 'bad things' })}\n\n`);
    const asEvent = await llmFailure(client().complete(ask));
    expect(asEvent.kind).toBe('other');
    expect(asEvent.message).toContain('bad things');
  });

  it('refuses a chunk that is not a chat completion chunk, saying where', async () => {
    handler = streams(`data: ${JSON.stringify({ choices: [{ delta: { tool_calls: 'everything' } }] })}\n\n`);
    const error = await llmFailure(client().complete(ask));
    expect(error.kind).toBe('bad_response');
    expect(error.message).toContain('choices.0.delta.tool_calls');
  });

  it('gives an error answer that is not JSON with its status and text', async () => {
    handler = (_req, res) => void res.writeHead(404, { 'content-type': 'text/plain' }).end('no such model here');
    const error = await llmFailure(client().complete(ask));
    expect(error).toMatchObject({ kind: 'other', status: 404 });
    expect(error.message).toContain('no such model here');
  });

  it('reports a server that cannot be reached as a connection failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await llmFailure(
      createLlmClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 5_000, maxRetries: 0 }).complete(ask),
    );
    expect(error.kind).toBe('other');
    expect(error.message).toMatch(/Could not connect to the model server/);
  });
});
