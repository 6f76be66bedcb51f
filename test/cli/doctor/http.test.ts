// `parley doctor`'s HTTP checks: where the listener binds and who reaches it, and whether a running
// Parley answers /healthz at PARLEY_WEB_PUBLIC_URL (a warning when not: fine while it is stopped).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { closedPort, doctor, migratedDatabase } from './run.ts';

describe('parley doctor: the HTTP listener and public URL', () => {
  it('says whether a Parley answers at the public URL', async () => {
    const base = await migratedDatabase();
    const server = createServer((req, res) => res.writeHead(req.url === '/healthz' ? 200 : 404).end('{"status":"ok"}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answering = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const up = await doctor(base, { PARLEY_HTTP_PORT: '8080', PARLEY_WEB_PUBLIC_URL: answering });
      expect(up.find('http', 'listener')).toMatchObject({ status: 'ok', detail: 'http://127.0.0.1:8080 (only this machine reaches it)' });
      expect(up.find('http', 'public URL')).toMatchObject({ status: 'ok', detail: `${answering}: a running Parley answers there` });
    } finally {
      server.close();
    }
    const down = await doctor(base, { PARLEY_WEB_PUBLIC_URL: `http://127.0.0.1:${await closedPort()}` });
    expect(down.find('http', 'public URL')).toMatchObject({
      status: 'warning',
      detail: expect.stringContaining('no answer at /healthz (ECONNREFUSED)'),
    });
  });
});
