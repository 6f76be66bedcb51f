// The http_request tool against SSRF: a real server on every loopback address counts what reaches
// it. Every way of writing an internal address, every name resolving to one, and every redirect to
// one must be refused with a clear error before a single request lands.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AnyTool, ToolOutput } from '../../src/agent/tools.ts';
import { createHttpRequestTool } from '../../src/tools/http-request.ts';
import type { Resolver } from '../../src/tools/guarded-agent.ts';
import { startCountingServer, type CountingServer } from './counting-server.ts';
import { internalHost } from './notations.ts';

let server: CountingServer;
/** Client sockets this process opened: a refused literal must not even open one. */
let sockets = 0;
const onSocket = () => void sockets++;
beforeAll(async () => {
  server = await startCountingServer();
  subscribe('net.client.socket', onSocket);
});
afterAll(async () => {
  unsubscribe('net.client.socket', onSocket);
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  sockets = 0;
});

/** A public address that tests route to the local server after it passed the check. */
const PUBLIC = '93.184.215.14';
const names: Record<string, string[]> = {
  'public.example': [PUBLIC],
  'loopback.example': ['127.0.0.1'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'private.example': ['10.1.2.3'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': [PUBLIC, '127.0.0.1'],
};
const resolve: Resolver = async (hostname) => {
  const addresses = names[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const dial = (address: string) => (address === PUBLIC ? '127.0.0.1' : address);

function guardedTool(options: { resolve?: Resolver } = {}): AnyTool {
  return createHttpRequestTool({ allowPrivateAddresses: false, network: { resolve: options.resolve ?? resolve, dial } });
}

/** Runs the tool as the agent does: arguments validated by its schema first. */
async function run(tool: AnyTool, url: string): Promise<ToolOutput> {
  const args = tool.parameters.parse({ url });
  // The bound only matters when a request wrongly goes out to an unroutable address.
  const result = await tool.execute(args, { signal: AbortSignal.timeout(5_000) } as never);
  return typeof result === 'string' ? { content: result } : result;
}

const BYPASSES = [
  '127.0.0.1',
  '[::1]',
  '[::]',
  '0.0.0.0',
  '0',
  '127.1',
  '2130706433',
  '0x7f.1',
  '0x7f000001',
  '0177.0.0.1',
  '017700000001',
  '[::127.0.0.1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:7f00:1]',
  '[::ffff:0:127.0.0.1]',
  '[64:ff9b::127.0.0.1]',
  '[64:ff9b::a9fe:a9fe]',
  '[64:ff9b:1::1]',
  '[2002:7f00:1::]',
  '[2002:c0a8:101::1]',
  '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
  '[2001:0:a00:1::]',
  '169.254.169.254',
  '[fe80::1]',
  '[fd00::2]',
  '[fc00::1]',
  '[fec0::1]',
  '[ff02::1]',
  '224.0.0.1',
  '255.255.255.255',
  '100.64.0.1',
  '198.18.0.1',
  '192.0.0.8',
  '240.0.0.1',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.0.1',
  '[2001:db8::1]',
  '[2001:2::1]',
  '[100::1]',
];

describe('http_request: SSRF guard', () => {
  it.each(BYPASSES)('refuses http://%s before anything is sent', async (host) => {
    const result = await run(guardedTool(), `http://${host}:${server.port}/secret`);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Refused: .* is an internal address \(.+\)\. Only public addresses can be fetched\.$/);
    expect(server.requests).toEqual([]);
    expect(sockets).toBe(0);
  });

  it('names the range and the IPv4 address an IPv6 literal carries', async () => {
    const result = await run(guardedTool(), `http://[::ffff:127.0.0.1]:${server.port}/`);
    expect(result.content).toBe(
      'Refused: ::ffff:7f00:1 is an internal address (loopback: it carries the IPv4 address 127.0.0.1). Only public addresses can be fetched.',
    );
  });

  it('refuses names that resolve to an internal address, even among public ones', async () => {
    for (const name of ['loopback.example', 'mapped.example', 'private.example', 'metadata.example', 'mixed.example']) {
      const result = await run(guardedTool(), `http://${name}:${server.port}/secret`);
      expect(result.isError, name).toBe(true);
      expect(result.content).toMatch(new RegExp(`^Refused: ${name.replace('.', '\\.')} resolves to \\S+, an internal address`));
    }
    expect(server.requests).toEqual([]);
  });

  it('reaches a public address (the control: the test set-up can reach the server)', async () => {
    const result = await run(guardedTool(), `http://public.example:${server.port}/page`);
    expect(result).toMatchObject({ isError: false, content: expect.stringContaining('inside /page') });
    expect(server.requests).toEqual(['/page']);
  });

  it('checks every redirect hop: a public page redirecting inside is refused', async () => {
    const tool = guardedTool();
    const targets = [
      `http://127.0.0.1:${server.port}/secret`,
      `http://[::ffff:7f00:1]:${server.port}/secret`,
      `http://0x7f.1:${server.port}/secret`,
      `http://loopback.example:${server.port}/secret`,
    ];
    for (const target of targets) {
      const result = await run(tool, `http://public.example:${server.port}/redirect?to=${encodeURIComponent(target)}`);
      expect(result.isError, target).toBe(true);
      expect(result.content).toMatch(/^Refused: .*internal address \(loopback/);
    }
    expect(server.requests.filter((r) => r.startsWith('/secret'))).toEqual([]);
    expect(server.requests).toHaveLength(targets.length);

    const allowed = await run(
      tool,
      `http://public.example:${server.port}/redirect?to=${encodeURIComponent(`http://public.example:${server.port}/ok`)}`,
    );
    expect(allowed).toMatchObject({ isError: false, content: expect.stringContaining('inside /ok') });
    expect(sockets).toBeGreaterThan(0);
  });

  it('refuses redirects to other schemes', async () => {
    const result = await run(guardedTool(), `http://public.example:${server.port}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`);
    expect(result).toEqual({
      isError: true,
      content: 'Refused to follow a redirect to file:///etc/passwd: only http:// and https:// URLs can be fetched.',
    });
  });

  it('resolves once per connection and connects to what it checked (DNS rebinding)', async () => {
    let lookups = 0;
    // Public on the first answer, loopback on every later one.
    const rebinding: Resolver = async () => [{ address: lookups++ === 0 ? PUBLIC : '127.0.0.1', family: 4 }];
    const tool = guardedTool({ resolve: rebinding });
    const first = await run(tool, `http://rebind.example:${server.port}/close`);
    expect(first).toMatchObject({ isError: false, content: expect.stringContaining('inside /close') });
    expect(lookups).toBe(1);
    // The server closed the connection, so the next request needs a new one: checked again.
    const second = await run(tool, `http://rebind.example:${server.port}/secret`);
    expect(second).toMatchObject({ isError: true, content: expect.stringMatching(/^Refused: rebind\.example resolves to 127\.0\.0\.1/) });
    expect(server.requests).toEqual(['/close']);
  });

  it('reports an unknown host as a clear error result', async () => {
    const result = await run(guardedTool(), `http://nowhere.example:${server.port}/`);
    expect(result).toEqual({
      isError: true,
      content: `Request to nowhere.example:${server.port} failed: getaddrinfo ENOTFOUND nowhere.example`,
    });
  });

  it('PARLEY_ALLOW_PRIVATE_HTTP still lets every form through', async () => {
    const tool = createHttpRequestTool({ allowPrivateAddresses: true });
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:7f00:1]', '0x7f.1']) {
      expect(await run(tool, `http://${host}:${server.port}/open`)).toMatchObject({ isError: false });
    }
    expect(server.requests).toEqual(['/open', '/open', '/open', '/open']);
  });

  it('property: an internal address in any notation is always refused, nothing sent', async () => {
    const tool = guardedTool();
    await fc.assert(
      fc.asyncProperty(internalHost, async (host) => {
        const result = await run(tool, `http://${host}:${server.port}/p`);
        expect(result.isError, host).toBe(true);
        expect(result.content, host).toMatch(/^Refused: /);
      }),
      { seed: 42, numRuns: 2000 },
    );
    expect(server.requests).toEqual([]);
    expect(sockets).toBe(0);
  });
});
