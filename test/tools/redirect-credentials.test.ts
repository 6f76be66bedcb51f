// http_request follows redirects by hand: credentials must not travel to another site, and an
// approved unsafe request (PUT/DELETE/POST kept by 307/308) must not be replayed at another site.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/agent/tools.ts';
import { createHttpRequestTool } from '../../src/tools/http-request.ts';
import { silentLogger } from '../../src/log.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

function site(handler: (url: string, res: import('node:http').ServerResponse) => void): {
  server: Server;
  seen: Seen[];
  base: () => string;
} {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers });
      handler(req.url!, res);
    });
  });
  return { server, seen, base: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const other = site((_url, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('other site'));
const origin = site((url, res) => {
  const [, status, where] = /^\/go\/(\d+)\/(same|other)$/.exec(url) ?? [];
  if (!status) return res.writeHead(200, { 'content-type': 'text/plain' }).end('same site');
  res.writeHead(Number(status), { location: where === 'same' ? `${origin.base()}/landing` : `${other.base()}/landing` }).end();
});

const ctx = { signal: new AbortController().signal, log: silentLogger } as unknown as ToolContext;
const tool = createHttpRequestTool({ allowPrivateAddresses: true });
const run = async (args: Record<string, unknown>) =>
  tool.execute(tool.parameters.parse(args), ctx) as Promise<{ content: string; isError?: boolean }>;
const secrets = { Authorization: 'Bearer s3cret', Cookie: 'sid=abc', 'Proxy-Authorization': 'Basic eA==', 'X-Trace': 'keep-me' };

beforeAll(async () => {
  for (const s of [origin, other]) await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  for (const s of [origin, other]) await new Promise<void>((r) => s.server.close(() => r()));
});

describe('http_request redirects', () => {
  it('keeps headers on a same-site redirect', async () => {
    const result = await run({ url: `${origin.base()}/go/302/same`, headers: secrets });
    expect(result.content).toContain('same site');
    const landing = origin.seen.at(-1)!;
    expect(landing.url).toBe('/landing');
    expect(landing.headers.authorization).toBe('Bearer s3cret');
  });

  it('drops Authorization, Cookie and Proxy-Authorization when a redirect leads to another site', async () => {
    const result = await run({ url: `${origin.base()}/go/302/other`, headers: secrets });
    expect(result.content).toContain('other site');
    const landing = other.seen.at(-1)!;
    expect(landing.headers.authorization).toBeUndefined();
    expect(landing.headers.cookie).toBeUndefined();
    expect(landing.headers['proxy-authorization']).toBeUndefined();
    expect(landing.headers['x-trace']).toBe('keep-me');
  });

  it('does not replay an unsafe method at another site (307/308), and says so', async () => {
    for (const status of [307, 308]) {
      for (const method of ['PUT', 'DELETE', 'POST']) {
        const before = other.seen.length;
        const result = await run({ url: `${origin.base()}/go/${status}/other`, method, body: 'x' });
        expect(result.isError).toBe(true);
        expect(result.content).toContain('Not followed');
        expect(other.seen.length).toBe(before);
      }
    }
  });

  it('follows a POST turned into a GET (303) to another site, without its body or credentials', async () => {
    const result = await run({ url: `${origin.base()}/go/303/other`, method: 'POST', body: 'x', headers: secrets });
    expect(result.content).toContain('other site');
    const landing = other.seen.at(-1)!;
    expect(landing.method).toBe('GET');
    expect(landing.headers.authorization).toBeUndefined();
  });
});
