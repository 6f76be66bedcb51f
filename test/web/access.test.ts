// Who may reach the web console: loopback by default, a token required anywhere else, and every
// request without the token refused when one is configured (plain HTTP and a real browser).
import type { Browser } from 'playwright-core';
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/env.ts';
import { silentLogger } from '../../src/log.ts';
import { webChannel, webConfigFromEnv } from '../../adapters/web/index.ts';
import { closeAll } from '../helpers/harness.ts';
import { launchBrowser, startConsole, type WebConsole } from './console.ts';

const TOKEN = 'a-long-secret-token-0123456789';

describe('web console configuration', () => {
  it('runs by default on 127.0.0.1:3000 and can be turned off', () => {
    expect(webConfigFromEnv({})).toEqual({ host: '127.0.0.1', port: 3000, token: undefined, loopback: true });
    expect(webConfigFromEnv({ PARLEY_WEB: 'off' })).toBeUndefined();
    expect(webChannel.fromEnv({ env: { PARLEY_WEB: 'false' }, log: silentLogger, botName: 'Parley' })).toBeUndefined();
  });

  it('refuses a non-loopback address without a token, with one line naming the variables', () => {
    for (const host of ['0.0.0.0', '192.168.1.20', '::', 'parley.example.com']) {
      const attempt = () => webChannel.fromEnv({ env: { PARLEY_WEB_HOST: host }, log: silentLogger, botName: 'Parley' });
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(/PARLEY_WEB_HOST is .* set PARLEY_WEB_TOKEN/);
    }
    expect(webConfigFromEnv({ PARLEY_WEB_HOST: '0.0.0.0', PARLEY_WEB_TOKEN: TOKEN })).toMatchObject({ host: '0.0.0.0', loopback: false, token: TOKEN });
    for (const host of ['localhost', '127.0.0.2', '::1', '[::1]']) expect(webConfigFromEnv({ PARLEY_WEB_HOST: host })?.loopback).toBe(true);
  });

  it('rejects a bad port or a short token', () => {
    expect(() => webConfigFromEnv({ PARLEY_WEB_PORT: 'eighty' })).toThrow(/PARLEY_WEB_PORT expects a whole number from 0 to 65535/);
    expect(() => webConfigFromEnv({ PARLEY_WEB_PORT: '70000' })).toThrow(ConfigError);
    expect(() => webConfigFromEnv({ PARLEY_WEB_TOKEN: 'short' })).toThrow(/PARLEY_WEB_TOKEN expects at least 16 characters/);
  });
});

describe('web console with PARLEY_WEB_TOKEN', () => {
  let web: WebConsole;
  let browser: Browser | undefined;

  beforeAll(async () => {
    web = await startConsole({ webEnv: { PARLEY_WEB_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await browser?.close();
    await closeAll();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${web.url}${path}`, { headers, redirect: 'manual' });
  const user = 'tab-0123456789';

  it('refuses the page, the API and the event stream without the token', async () => {
    for (const path of ['/', `/api/chat?user=${user}`, `/api/events?user=${user}`]) {
      const response = await get(path);
      expect(response.status, path).toBe(401);
      expect(await response.text()).toMatch(/access token required/);
    }
    const post = await fetch(`${web.url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user, name: 'Mallory', text: 'hello' }),
    });
    expect(post.status).toBe(401);
    expect(await web.harness.store.sessions.getByKey(`web:dm-${user}`)).toBeUndefined();
  });

  it('refuses a wrong token wherever it is presented', async () => {
    expect((await get(`/api/chat?user=${user}`, { authorization: 'Bearer not-the-token-at-all' })).status).toBe(401);
    expect((await get(`/api/chat?user=${user}`, { cookie: 'parley_web_token=not-the-token-at-all' })).status).toBe(401);
    expect((await get('/?token=not-the-token-at-all')).status).toBe(401);
  });

  it('accepts the token as a bearer header, and trades ?token= on the page for a cookie', async () => {
    expect((await get(`/api/chat?user=${user}`, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);

    const exchange = await get(`/?room=ops&token=${TOKEN}`);
    expect(exchange.status).toBe(303);
    expect(exchange.headers.get('location')).toBe('/?room=ops');
    const cookie = exchange.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const page = await get('/?room=ops', { cookie: cookie.split(';')[0]! });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('id="composer"');
  });

  it('lets a browser opened with ?token= chat (page, API and event stream through the cookie)', async () => {
    browser = await launchBrowser();
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    web.harness.model.enqueue({ text: 'Token accepted, hello!' });
    await page.goto(`${web.url}/?token=${TOKEN}`);
    expect(new URL(page.url()).search).toBe('');
    await page.locator('body[data-ready="true"]').waitFor();
    await page.fill('#text', 'hello');
    await page.click('#send');
    await page.locator('.msg.bot', { hasText: 'Token accepted, hello!' }).waitFor();

    const stranger = await browser.newPage();
    await stranger.goto(web.url);
    expect(await stranger.textContent('body')).toContain('access token required');
  });
});

describe('web console without a token', () => {
  afterEach(closeAll);

  it('answers only requests addressed to a loopback host name (no DNS rebinding)', async () => {
    const web = await startConsole();
    const statusFor = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${web.url}/api/chat?user=tab-0123456789`, { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await statusFor('evil.example:3000')).toBe(403);
    expect(await statusFor(`localhost:${new URL(web.url).port}`)).toBe(200);
    expect(await statusFor(new URL(web.url).host)).toBe(200);
  });
});
