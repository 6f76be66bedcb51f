// Who may reach the web console: loopback by default, a token required anywhere else, and every
// request without the token refused when one is configured (plain HTTP and a real browser).
import type { Browser } from 'playwright-core';
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/env.ts';
import { silentLogger } from '../../src/log.ts';
import { webChannel, webConfigFromEnv } from '../../adapters/web/index.ts';
import { closeConsoles, launchBrowser, startConsole, type WebConsole } from './console.ts';

const TOKEN = 'a-long-secret-token-0123456789';

describe('web console configuration', () => {
  it('runs by default (on the loopback HTTP host) and can be turned off', async () => {
    expect(webConfigFromEnv({})).toEqual({
      token: undefined,
      loopback: true,
      secret: undefined,
      maxStreamsPerUser: 8,
      maxStreams: 200,
      locale: 'auto',
      maxUploadBytes: 20_000_000,
    });
    expect(webConfigFromEnv({ PARLEY_WEB: 'off' })).toBeUndefined();
    expect(await webChannel.fromEnv({ env: { PARLEY_WEB: 'false' }, log: silentLogger, botName: 'Parley' })).toBeUndefined();
  });

  it('refuses a non-loopback HTTP host without a token, with one line naming the variables', async () => {
    for (const host of ['0.0.0.0', '192.168.1.20', '::', 'parley.example.com']) {
      const attempt = () => webChannel.fromEnv({ env: { PARLEY_HTTP_HOST: host }, log: silentLogger, botName: 'Parley' });
      await expect(attempt()).rejects.toThrow(ConfigError);
      await expect(attempt()).rejects.toThrow(/PARLEY_HTTP_HOST is .* set PARLEY_WEB_TOKEN/);
    }
    expect(webConfigFromEnv({ PARLEY_HTTP_HOST: '0.0.0.0', PARLEY_WEB_TOKEN: TOKEN })).toMatchObject({ loopback: false, token: TOKEN });
    for (const host of ['localhost', '127.0.0.2', '::1', '[::1]'])
      expect(webConfigFromEnv({ PARLEY_HTTP_HOST: host })?.loopback).toBe(true);
    // With the console off, the host may listen anywhere (it serves /healthz and /readyz).
    expect(webConfigFromEnv({ PARLEY_HTTP_HOST: '0.0.0.0', PARLEY_WEB: 'off' })).toBeUndefined();
  });

  it('rejects a short token or secret and bad stream limits', () => {
    expect(() => webConfigFromEnv({ PARLEY_WEB_TOKEN: 'short' })).toThrow(/PARLEY_WEB_TOKEN expects at least 16 characters/);
    expect(() => webConfigFromEnv({ PARLEY_WEB_SECRET: 'short' })).toThrow(/PARLEY_WEB_SECRET expects at least 32 characters/);
    expect(() => webConfigFromEnv({ PARLEY_WEB_MAX_STREAMS: '0' })).toThrow(/PARLEY_WEB_MAX_STREAMS expects a whole number from 1/);
    expect(() => webConfigFromEnv({ PARLEY_WEB_MAX_STREAMS_PER_USER: 'many' })).toThrow(
      /PARLEY_WEB_MAX_STREAMS_PER_USER expects a whole number/,
    );
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
    await closeConsoles();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${web.url}${path}`, { headers, redirect: 'manual' });

  it('refuses the page, the API, the event stream and the admin login without the token', async () => {
    for (const path of ['/', '/api/chat', '/api/events', '/admin-login?code=x']) {
      const response = await get(path);
      expect(response.status, path).toBe(401);
      expect(await response.text()).toMatch(/access token required/);
    }
    const post = await fetch(`${web.url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Mallory', text: 'hello' }),
    });
    expect(post.status).toBe(401);
    expect(await web.harness.store.sessions.list()).toEqual([]);
  });

  it('refuses a wrong token wherever it is presented', async () => {
    expect((await get('/api/chat', { authorization: 'Bearer not-the-token-at-all' })).status).toBe(401);
    expect((await get('/api/chat', { cookie: 'parley_web_token=not-the-token-at-all' })).status).toBe(401);
    expect((await get('/?token=not-the-token-at-all')).status).toBe(401);
  });

  it('accepts the token as a bearer header, and trades ?token= on the page for a cookie', async () => {
    expect((await get('/api/chat', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);

    const exchange = await get(`/?room=ops&token=${TOKEN}`);
    expect(exchange.status).toBe(303);
    expect(exchange.headers.get('location')).toBe('/?room=ops');
    const cookie = exchange.headers.getSetCookie().find((c) => c.startsWith('parley_web_token='))!;
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
  afterEach(closeConsoles);

  it('answers only requests addressed to a loopback host name (no DNS rebinding)', async () => {
    const web = await startConsole();
    const statusFor = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${web.url}/api/chat`, { headers: { host } }, (res) => {
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
