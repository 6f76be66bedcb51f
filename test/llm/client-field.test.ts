// The client against answers shaped as real servers send them, on a raw socket: error bodies that
// are a JSON array (Gemini) or plain text (proxies), a connection cut or left open after the finish
// chunk (proxies; llama.cpp's server ends without `[DONE]`), `<think>` in content.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmClient } from '../../src/llm/client.ts';
import type { LlmError } from '../../src/llm/errors.ts';
import type { StreamDelta } from '../../src/llm/types.ts';

type Answer = (res: ServerResponse) => void;
let answer: Answer = (res) => res.end();
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = () => createLlmClient({ baseUrl: url, apiKey: 'k', model: 'm', timeoutMs: 20_000, maxRetries: 0 });
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

async function failure(): Promise<LlmError> {
  return client()
    .complete(ask)
    .then(
      () => expect.unreachable('the request should fail'),
      (error: LlmError) => error,
    );
}

describe('LLM client against real-shaped answers', () => {
  it("reports a Gemini error body (a JSON array) with the server's message", async () => {
    const body = [
      { error: { code: 400, message: 'Function call is missing a thought_signature in functionCall parts.', status: 'INVALID_ARGUMENT' } },
    ];
    answer = (res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const error = await failure();
    expect(error.status).toBe(400);
    expect(error.message).toContain('missing a thought_signature');
  });

  it('reports a plain-text error body and a body without `error` with their text', async () => {
    answer = (res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>502 Bad Gateway: upstream unreachable</html>');
    expect((await failure()).message).toContain('upstream unreachable');
    answer = (res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"model qwen9 not found"}');
    expect((await failure()).message).toContain('model qwen9 not found');
  });

  it('delivers an answer whose finish reason came although the connection was then cut', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: 'The whole ' }));
      res.write(chunk({ content: 'answer.' }));
      res.write(chunk({}, 'stop'), () => res.socket?.destroy());
    };
    const result = await client().complete(ask);
    expect(result).toMatchObject({ text: 'The whole answer.', finishReason: 'stop' });
  });

  it('fails an answer cut before its finish reason', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: 'The whole ' }), () => res.socket?.destroy());
    };
    expect((await failure()).kind).not.toBe('aborted');
  });

  it('takes a <think> block at the start of content as reasoning, split across chunks', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const piece of ['<thi', 'nk>\nThe user says hi.', '\n</th', 'ink>\n\n', 'Hello!']) res.write(chunk({ content: piece }));
      res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
    };
    const deltas: StreamDelta[] = [];
    const result = await client().complete(ask, { onDelta: (d) => deltas.push(d) });
    expect(result.text).toBe('Hello!');
    expect(result.reasoning).toBe('\nThe user says hi.\n');
    expect(
      deltas
        .filter((d) => d.kind === 'text')
        .map((d) => d.text)
        .join(''),
    ).toBe('Hello!');
  });
});
