// /readyz to callers from elsewhere: on a listener other machines reach (beyond loopback, or behind
// the public address PARLEY_WEB_PUBLIC_URL names) it says ready or not and names nothing, unless the
// caller sends PARLEY_WEB_TOKEN; on a loopback listener it shows everything, as before.
import { afterEach, describe, expect, it } from 'vitest';
import { httpConfigFromEnv, type HttpConfig } from '../../src/http/config.ts';
import { HttpHost } from '../../src/http/host.ts';
import type { ChannelPhase } from '../../src/http/readiness.ts';
import { silentLogger } from '../../src/log.ts';

const TOKEN = 'readyz-token-0123456789';
const hosts: HttpHost[] = [];
afterEach(async () => {
  while (hosts.length) await hosts.pop()!.close();
});

async function startHost(config: Partial<HttpConfig>, phase: ChannelPhase = 'started'): Promise<string> {
  const host = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    ...config,
    log: silentLogger,
    readiness: { pingDatabase: async () => {}, channels: ['telegram', 'feishu-ops'], phase: () => phase },
  });
  await host.listen();
  hosts.push(host);
  // Through loopback whatever the listener's address: what matters is where it listens.
  return host.url.replace('0.0.0.0', '127.0.0.1');
}

async function readyz(url: string, authorization?: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/readyz`, authorization ? { headers: { authorization } } : {});
  return { status: response.status, text: await response.text() };
}

describe('/readyz beyond this machine', () => {
  it('names no channel on a listener other machines reach, unless the token is sent', async () => {
    const url = await startHost({ host: '0.0.0.0', accessToken: TOKEN });
    expect(await readyz(url)).toEqual({ status: 200, text: '{"ready":true}' });
    expect(await readyz(url, 'Bearer wrong-token-0123456789')).toEqual({ status: 200, text: '{"ready":true}' });
    const full = await readyz(url, `Bearer ${TOKEN}`);
    expect(full.status).toBe(200);
    expect(JSON.parse(full.text)).toEqual({
      ready: true,
      database: 'ok',
      channels: { telegram: 'started', 'feishu-ops': 'started' },
      notReady: [],
    });

    const starting = await startHost({ host: '0.0.0.0', accessToken: TOKEN }, 'starting');
    expect(await readyz(starting)).toEqual({ status: 503, text: '{"ready":false}' });
    expect(JSON.parse((await readyz(starting, `Bearer ${TOKEN}`)).text).notReady).toEqual([
      'channel telegram: starting',
      'channel feishu-ops: starting',
    ]);
  });

  it('names no channel behind a public address either, and without a token to no one', async () => {
    const proxied = await startHost({ publicUrl: 'https://bot.example.com' });
    expect(await readyz(proxied)).toEqual({ status: 200, text: '{"ready":true}' });
    expect(await readyz(proxied, 'Bearer anything')).toEqual({ status: 200, text: '{"ready":true}' });
  });

  it('shows everything on a loopback listener', async () => {
    const local = await startHost({ publicUrl: 'http://localhost:3000' });
    expect(JSON.parse((await readyz(local)).text)).toMatchObject({ ready: true, channels: { telegram: 'started' } });
  });

  it('takes the public address and the token from PARLEY_WEB_PUBLIC_URL and PARLEY_WEB_TOKEN', () => {
    expect(httpConfigFromEnv({ PARLEY_WEB_PUBLIC_URL: 'https://bot.example.com', PARLEY_WEB_TOKEN: TOKEN })).toEqual({
      host: '127.0.0.1',
      port: 3000,
      publicUrl: 'https://bot.example.com',
      accessToken: TOKEN,
    });
    expect(() => httpConfigFromEnv({ PARLEY_WEB_PUBLIC_URL: 'bot.example.com' })).toThrow(/PARLEY_WEB_PUBLIC_URL expects an http/);
  });
});
