// The one HTTP host on a real socket: /healthz, /readyz (with a real database that stops
// answering, on PostgreSQL), mounts looked up per request (longest prefix, after listening too), clear errors.
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { ConfigError } from '../../src/core/env.ts';
import type { CoreLogger } from '../../src/core/types.ts';
import { httpConfigFromEnv } from '../../src/http/config.ts';
import { HttpHost } from '../../src/http/host.ts';
import type { ChannelPhase, ReadinessProbe } from '../../src/http/readiness.ts';
import { silentLogger } from '../../src/log.ts';
import { openStore } from '../../src/store/store.ts';
import { waitFor } from '../helpers/harness.ts';
import { TcpRelay } from './tcp-relay.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function startHost(readiness: Partial<ReadinessProbe> = {}, options: { log?: CoreLogger; readinessTimeoutMs?: number } = {}) {
  const host = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    log: options.log ?? silentLogger,
    readiness: { pingDatabase: async () => {}, channels: [], phase: () => 'started', ...readiness },
    ...(options.readinessTimeoutMs ? { readinessTimeoutMs: options.readinessTimeoutMs } : {}),
  });
  await host.listen();
  cleanups.push(() => host.close());
  return host;
}

async function json(response: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('http host configuration', () => {
  it('listens on 127.0.0.1:3000 unless PARLEY_HTTP_HOST / PARLEY_HTTP_PORT say otherwise', () => {
    expect(httpConfigFromEnv({})).toEqual({ host: '127.0.0.1', port: 3000 });
    expect(httpConfigFromEnv({ PARLEY_HTTP_HOST: '[::1]', PARLEY_HTTP_PORT: '0' })).toEqual({ host: '::1', port: 0 });
    expect(() => httpConfigFromEnv({ PARLEY_HTTP_PORT: 'eighty' })).toThrow(/PARLEY_HTTP_PORT expects a whole number from 0 to 65535/);
    expect(() => httpConfigFromEnv({ PARLEY_HTTP_PORT: '70000' })).toThrow(ConfigError);
  });

  it('refuses the old PARLEY_WEB_HOST / PARLEY_WEB_PORT, naming their replacements', () => {
    expect(() => httpConfigFromEnv({ PARLEY_WEB_HOST: '0.0.0.0' })).toThrow(
      /^Invalid configuration: PARLEY_WEB_HOST is no longer read; set PARLEY_HTTP_HOST instead/,
    );
    expect(() => httpConfigFromEnv({ PARLEY_WEB_PORT: '8080' })).toThrow(
      /^Invalid configuration: PARLEY_WEB_PORT is no longer read; set PARLEY_HTTP_PORT instead/,
    );
    expect(httpConfigFromEnv({ PARLEY_WEB_PORT: '' })).toEqual({ host: '127.0.0.1', port: 3000 });
  });
});

describe('http host', () => {
  it('answers /healthz always, and /readyz only when the database answers and the channels started', async () => {
    let phase: ChannelPhase = 'starting';
    let database: 'ok' | 'down' | 'hang' = 'ok';
    const host = await startHost(
      {
        channels: ['web', 'telegram'],
        phase: () => phase,
        pingDatabase: () =>
          database === 'ok'
            ? Promise.resolve()
            : database === 'down'
              ? Promise.reject(new Error('secret://details'))
              : new Promise(() => {}),
      },
      { readinessTimeoutMs: 300 },
    );
    expect(await json(await fetch(`${host.url}/healthz`))).toEqual({ status: 200, body: { status: 'ok' } });
    expect((await fetch(`${host.url}/healthz`, { method: 'HEAD' })).status).toBe(200);

    expect(await json(await fetch(`${host.url}/readyz`))).toEqual({
      status: 503,
      body: {
        ready: false,
        database: 'ok',
        channels: { web: 'starting', telegram: 'starting' },
        notReady: ['channel web: starting', 'channel telegram: starting'],
      },
    });
    phase = 'started';
    expect(await json(await fetch(`${host.url}/readyz`))).toEqual({
      status: 200,
      body: { ready: true, database: 'ok', channels: { web: 'started', telegram: 'started' }, notReady: [] },
    });
    database = 'down';
    const down = await json(await fetch(`${host.url}/readyz`));
    expect(down).toMatchObject({ status: 503, body: { ready: false, database: 'unreachable', notReady: ['database: does not answer'] } });
    expect(JSON.stringify(down.body)).not.toContain('secret');
    database = 'hang';
    expect(await json(await fetch(`${host.url}/readyz`))).toMatchObject({
      status: 503,
      body: { database: 'timeout', notReady: ['database: no answer within 300 ms'] },
    });
    database = 'ok';
    phase = 'stopping';
    expect(await json(await fetch(`${host.url}/readyz`))).toMatchObject({
      status: 503,
      body: { notReady: ['channel web: stopping', 'channel telegram: stopping'] },
    });
    expect((await fetch(`${host.url}/healthz`)).status).toBe(200);
  });

  // A real database that stops answering: PostgreSQL behind a TCP relay this test cuts and restores.
  it.runIf(process.env.PARLEY_TEST_POSTGRES_URL)(
    'is not ready while a real PostgreSQL database does not answer, and ready again after',
    async () => {
      const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL!;
      const name = `parley_test_${randomBytes(4).toString('hex')}`;
      const admin = async (sql: string) => {
        const client = new pg.Client({ connectionString: adminUrl });
        await client.connect();
        await client.query(sql).finally(() => client.end());
      };
      await admin(`CREATE DATABASE ${name}`);
      cleanups.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      const target = new URL(adminUrl);
      const relay = await TcpRelay.start(target.hostname, Number(target.port || 5432));
      cleanups.push(() => relay.close());
      const viaRelay = new URL(adminUrl);
      viaRelay.hostname = '127.0.0.1';
      viaRelay.port = String(relay.port);
      viaRelay.pathname = `/${name}`;
      const store = await openStore(parseDatabaseUrl(viaRelay.toString()));
      cleanups.push(() => store.close());
      const host = await startHost({ pingDatabase: () => store.ping(), channels: ['web'] }, { readinessTimeoutMs: 3_000 });
      expect((await fetch(`${host.url}/readyz`)).status).toBe(200);

      await relay.cut();
      const down = await json(await fetch(`${host.url}/readyz`));
      expect(down.status).toBe(503);
      expect(down.body.database).not.toBe('ok');
      expect((await fetch(`${host.url}/healthz`)).status).toBe(200);

      await relay.restore();
      await waitFor(async () => (await fetch(`${host.url}/readyz`)).status === 200, 'ready again', 10_000);
    },
  );

  it('routes each request to the longest mounted prefix, also for mounts made after it listens', async () => {
    const host = await startHost();
    expect(await json(await fetch(`${host.url}/anything`))).toEqual({ status: 404, body: { error: 'not found' } });
    const seen = (name: string) => (request: Request) =>
      Response.json({ name, path: new URL(request.url).pathname, method: request.method });
    host.mount('/', seen('console'));
    const unmount = host.mount('/telegram', seen('telegram'));
    host.mount('/feishu/events/', seen('feishu'));

    const where = async (path: string, init?: RequestInit) =>
      (await (await fetch(`${host.url}${path}`, init)).json()) as { name: string; path: string };
    expect(await where('/')).toMatchObject({ name: 'console', path: '/' });
    expect(await where('/api/chat')).toMatchObject({ name: 'console' });
    expect(await where('/telegram', { method: 'POST', body: '{}' })).toEqual({ name: 'telegram', path: '/telegram', method: 'POST' });
    expect(await where('/telegram/secret-path')).toMatchObject({ name: 'telegram', path: '/telegram/secret-path' });
    expect(await where('/telegramx')).toMatchObject({ name: 'console' });
    expect(await where('/feishu/events')).toMatchObject({ name: 'feishu' });
    // The host's own paths stay the host's.
    expect(await json(await fetch(`${host.url}/healthz`))).toEqual({ status: 200, body: { status: 'ok' } });

    unmount();
    expect(await where('/telegram')).toMatchObject({ name: 'console' });
    expect(() => host.mount('/healthz', seen('x'))).toThrow(/host's own/);
    expect(() => host.mount('/', seen('x'))).toThrow(/already mounted at \//);
    expect(() => host.mount('telegram', seen('x'))).toThrow(/expects a path starting with \//);
  });

  it('answers a failing handler with a logged 500 and keeps serving', async () => {
    const errors: string[] = [];
    const log: CoreLogger = { ...silentLogger, debug() {}, info() {}, warn() {}, error: (_obj, msg) => errors.push(msg ?? '') };
    const host = await startHost({}, { log });
    host.mount('/boom', () => {
      throw new Error('kaboom');
    });
    expect(await json(await fetch(`${host.url}/boom`))).toEqual({
      status: 500,
      body: { error: 'internal error (details are in the log)' },
    });
    expect(errors).toEqual(['http request failed']);
    expect((await fetch(`${host.url}/healthz`)).status).toBe(200);
  });

  it('answers bytes that are not HTTP with a JSON 400 and keeps serving', async () => {
    const host = await startHost();
    const { port } = new URL(host.url);
    for (const garbage of [
      'hello\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      '\u0000\u0001\u0002\r\n\r\n',
    ]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(garbage));
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).toMatch(/content-type: application\/json/);
      expect(answer.endsWith('{"error":"malformed HTTP request"}')).toBe(true);
    }
    expect((await fetch(`${host.url}/healthz`)).status).toBe(200);
  });

  it('fails to listen with one clear line when the port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as AddressInfo).port;
    const host = new HttpHost({
      host: '127.0.0.1',
      port,
      log: silentLogger,
      readiness: { pingDatabase: async () => {}, channels: [], phase: () => 'started' },
    });
    await expect(host.listen()).rejects.toThrow(`http: http://127.0.0.1:${port} is already in use; set PARLEY_HTTP_PORT to a free port`);
    await host.close();
  });
});
