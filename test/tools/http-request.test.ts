import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpRequestTool, isInternalAddress } from '../../src/tools/http-request.ts';
import { ALICE } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';
import { promptsIn } from '../approvals/helpers.ts';

let server: Server;
let base: string;
const received: { method: string; url: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, body });
      if (req.url === '/redirect-inside') {
        res.writeHead(302, { location: `${base}/hello` }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`you sent ${req.method} ${req.url} ${body}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(closeAll);

describe('http_request tool', () => {
  it('classifies internal addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ]) {
      expect(isInternalAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isInternalAddress(address), address).toBe(false);
  });

  it('needs approval for methods other than GET and HEAD', () => {
    const tool = createHttpRequestTool({ allowPrivateAddresses: false });
    const policy = tool.approval as (args: { method: string }) => boolean;
    expect(policy({ method: 'GET' })).toBe(false);
    expect(policy({ method: 'HEAD' })).toBe(false);
    expect(policy({ method: 'POST' })).toBe(true);
    expect(policy({ method: 'DELETE' })).toBe(true);
  });

  it('refuses loopback and private targets by default, including through DNS names', async () => {
    const tool = createHttpRequestTool({ allowPrivateAddresses: false });
    const ctx = { signal: new AbortController().signal } as never;
    const direct = await tool.execute({ url: `${base}/hello`, method: 'GET' }, ctx);
    expect(direct).toMatchObject({ isError: true, content: expect.stringMatching(/^Refused: 127\.0\.0\.1 is an internal address/) });
    const named = await tool.execute({ url: `${base.replace('127.0.0.1', 'localhost')}/hello`, method: 'GET' }, ctx);
    expect(named).toMatchObject({ isError: true, content: expect.stringMatching(/^Refused: localhost resolves to .*internal address/) });
    expect(received.filter((r) => r.url === '/hello')).toHaveLength(0);
  });

  it('in a turn: GET runs at once, POST waits for approval', async () => {
    const h = await createHarness({ env: { PARLEY_ALLOW_PRIVATE_HTTP: 'true' } });
    h.model.enqueue({ toolCalls: [{ name: 'http_request', arguments: { url: `${base}/status` } }] }, { text: 'Fetched.' });
    await h.adapter.say('check status');
    await settled(h.store, 'memory:dm-u-alice');
    expect(h.model.requests[1]!.body.messages.at(-1)!.content).toMatch(
      /^HTTP 200 OK\nURL: .*\/status\nContent-Type: text\/plain\n\nyou sent GET \/status/,
    );
    expect(h.adapter.prompts()).toHaveLength(0);

    h.model.enqueue(
      { toolCalls: [{ name: 'http_request', arguments: { url: `${base}/orders`, method: 'POST', body: 'pizza' } }] },
      { text: 'Ordered.' },
    );
    await h.adapter.say('order a pizza');
    const [prompt] = await promptsIn(h.adapter);
    expect(prompt!.text).toContain(`send an HTTP POST request to ${base}/orders`);
    expect(received.some((r) => r.url === '/orders')).toBe(false);
    await h.adapter.click(prompt!.id, 'Approve', ALICE);
    await settled(h.store, 'memory:dm-u-alice');
    expect(received.find((r) => r.url === '/orders')).toMatchObject({ method: 'POST', body: 'pizza' });
  });
});
