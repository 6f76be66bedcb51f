// What http_request reads of a response body: an endless download is cut off after the budget
// (the server sees the connection close), binary bodies are described, long text is truncated.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../src/agent/tools.ts';
import { createHttpRequestTool } from '../../src/tools/http-request.ts';

let server: Server;
let base: string;
let endlessBytes = 0;
let endlessClosed = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/endless') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) endlessBytes += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', () => (endlessClosed = true));
      pump();
      return;
    }
    if (req.url === '/binary')
      return void res
        .writeHead(200, { 'content-type': 'application/octet-stream' })
        .end(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x41]));
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('é'.repeat(30_000));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function get(path: string): Promise<ToolOutput> {
  const tool = createHttpRequestTool({ allowPrivateAddresses: true });
  // The bound only matters if the body were read to its (never coming) end.
  const result = await tool.execute({ url: `${base}${path}`, method: 'GET' }, { signal: AbortSignal.timeout(10_000) } as never);
  return typeof result === 'string' ? { content: result } : result;
}

describe('http_request: response bodies', () => {
  it('cuts an endless body off after the budget instead of buffering it', async () => {
    const result = await get('/endless');
    expect(result.isError).toBe(false);
    expect(result.content).toMatch(/\n\na{20000}\n\[body truncated: more than 80000 bytes\]$/);
    await expect.poll(() => endlessClosed).toBe(true);
    // What the server managed to push before the close: socket buffers, nowhere near the whole.
    expect(endlessBytes).toBeLessThan(64 * 1024 * 1024);
  });

  it('describes a binary body instead of passing NUL bytes on', async () => {
    const result = await get('/binary');
    expect(result.content).toMatch(/Content-Type: application\/octet-stream\n\n\[binary body: 7 bytes, not shown\]$/);
    expect(result.content).not.toContain('\u0000');
  });

  it('truncates long text to the character budget, saying how long it was', async () => {
    const result = await get('/text');
    expect(result.content).toMatch(/\n\né{20000}\n\[body truncated: 30000 characters in all\]$/);
  });
});
