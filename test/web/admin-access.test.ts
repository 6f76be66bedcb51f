// Who may use the admin pages, over real HTTP against the console on the real core: every admin
// route and API answers 403 to a browser without the admin identity (none, a forged cookie, another
// browser's cookie), every change is refused cross-site even with the admin's cookie, a cross-site
// request never replaces a browser's identity cookie (the admin's included), and `parley web
// admin-link` gives a working one-time link to the running console without signing anyone out.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_ROUTES } from '../../adapters/web/admin/routes.ts';
import { runCli } from '../../src/cli/program.ts';
import { ConsoleClient } from './client.ts';
import { closeConsoles, startConsole, type WebConsole } from './console.ts';

afterEach(closeConsoles);

function pathOf(link: string): string {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

async function adminOf(web: WebConsole): Promise<ConsoleClient> {
  const admin = new ConsoleClient(web.url);
  const login = await admin.get(pathOf(web.web.adminLoginUrl!));
  expect(login.status).toBe(303);
  return admin;
}

async function adminLink(web: WebConsole): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runCli(['web', 'admin-link', '--json'], {
    out: (text) => (out += text),
    err: (text) => (out += text),
    isTTY: false,
    env: { DATABASE_URL: `file:${join(web.dataDir, 'parley.db')}`, PARLEY_HTTP_PORT: new URL(web.url).port },
    cwd: process.cwd(),
  });
  return { code, out };
}

/** How a browser marks a request from another page than the console's own (Fetch Metadata, Origin). */
const CROSS_SITE: Record<string, string>[] = [
  { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
  { 'sec-fetch-site': 'same-site', origin: 'http://localhost:9' },
  { origin: 'https://evil.example' },
  { origin: 'null' },
];

/** A request to an admin route as a form would send it (POST with a urlencoded body). */
function knock(client: ConsoleClient, method: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return method === 'GET'
    ? client.request(path, { headers })
    : client.request(path, {
        method,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: 'code=ABC&choice=approve&slug=x&revision=1&expected=1&key=web%3Ax&session=s&tool=t&file=x',
      });
}

describe('web admin: access', () => {
  it('answers 403 on every admin route and API to a browser that is not the admin, forged cookies included', async () => {
    const web = await startConsole();
    const admin = await adminOf(web);
    const stranger = new ConsoleClient(web.url);
    await stranger.id();
    const adminCookie = admin.cookie('parley_web_id')!;
    // The admin's signed cookie with the first character of its signature changed (a character
    // that carries six bits of it: the last one before the padding carries only four, and changing
    // the two spare bits gives the same signature, which an earlier version of this test did).
    const at = adminCookie.lastIndexOf('.') + 1;
    const first = adminCookie[at] === 'A' ? 'B' : 'A';
    const forged = new ConsoleClient(web.url, { parley_web_id: `${adminCookie.slice(0, at)}${first}${adminCookie.slice(at + 1)}` });
    // The operator's id without a signature, and another (non-admin) browser's whole cookie.
    const unsigned = new ConsoleClient(web.url, { parley_web_id: adminCookie.split('.')[0]! });
    const copied = new ConsoleClient(web.url, { parley_web_id: stranger.cookie('parley_web_id')! });
    for (const [method, path] of ADMIN_ROUTES) {
      for (const [who, client] of [
        ['nobody', new ConsoleClient(web.url)],
        ['stranger', stranger],
        ['forged', forged],
        ['unsigned', unsigned],
        ['copied', copied],
      ] as const) {
        const response = await knock(client, method, path);
        expect({ who, method, path, status: response.status }).toEqual({ who, method, path, status: 403 });
        // Nothing of the admin pages, not even their names.
        expect(await response.text()).not.toMatch(/class="sections"|Approvals|Conversations/);
      }
    }
    // The admin gets every page that needs no parameter.
    for (const path of [
      '/admin/knowledge',
      '/admin/approvals',
      '/admin/conversations',
      '/admin/usage',
      '/admin/health',
      '/admin/knowledge/export',
      '/api/admin/usage',
      '/api/admin/health',
    ]) {
      expect({ path, status: (await admin.get(path)).status }).toEqual({ path, status: 200 });
    }
  });

  it('refuses every admin change from another site, even carrying the admin cookie, and changes nothing', async () => {
    const web = await startConsole();
    const admin = await adminOf(web);
    const audit = await web.harness.store.audit.list();
    for (const [method, path] of ADMIN_ROUTES.filter(([m]) => m === 'POST')) {
      for (const headers of CROSS_SITE) {
        const response = await knock(admin, method, path, headers);
        expect({ path, headers, status: response.status }).toEqual({ path, headers, status: 403 });
        expect(await response.text()).toContain('another site');
      }
    }
    expect(await web.harness.store.audit.list()).toEqual(audit);
    // The same form from the console's own page gets past the guard (to a 404: there is no page x).
    const own = await knock(admin, 'POST', '/admin/knowledge/revert', { 'sec-fetch-site': 'same-origin', origin: web.url });
    expect(own.status).toBe(404);
  });

  it('never replaces a browser identity on a cross-site request; a same-site first visit still gets one', async () => {
    const web = await startConsole();
    // A cross-site navigation or form carries no SameSite=Strict cookie, and gets none back.
    for (const path of ['/', '/index.html', '/admin', '/admin/knowledge', `/admin-login?code=wrong`]) {
      const response = await new ConsoleClient(web.url).request(path, { headers: { 'sec-fetch-site': 'cross-site' } });
      expect({ path, cookies: response.headers.getSetCookie().filter((c) => c.startsWith('parley_web_id=')) }).toEqual({
        path,
        cookies: [],
      });
    }
    const api = await new ConsoleClient(web.url).request('/api/chat', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(api.status).toBe(403);
    expect(api.headers.getSetCookie()).toEqual([]);
    // A first visit from the console's own site (or typed into the address bar) is given an identity.
    for (const site of ['none', 'same-origin']) {
      const response = await new ConsoleClient(web.url).request('/', { headers: { 'sec-fetch-site': site } });
      expect(response.headers.getSetCookie().some((c) => c.startsWith('parley_web_id='))).toBe(true);
    }
  });

  it('with PARLEY_WEB_TOKEN, the admin pages want the token too, even from the admin browser', async () => {
    const token = 'a-long-enough-access-token';
    const web = await startConsole({ webEnv: { PARLEY_WEB_TOKEN: token } });
    const admin = new ConsoleClient(web.url);
    const link = new URL(web.web.adminLoginUrl!);
    expect((await admin.get(`${link.pathname}${link.search}&token=${token}`)).status).toBe(303);
    expect((await admin.get(`${link.pathname}${link.search}`)).status).toBe(303);
    expect((await admin.get('/admin/health')).status).toBe(200);
    const withoutToken = new ConsoleClient(web.url, { parley_web_id: admin.cookie('parley_web_id')! });
    for (const path of ['/admin/health', '/api/admin/health']) {
      expect({ path, status: (await withoutToken.get(path)).status }).toEqual({ path, status: 401 });
    }
  });

  it('parley web admin-link prints a link the running console takes once, without signing out the admins', async () => {
    const web = await startConsole();
    const first = await adminOf(web);
    expect((await first.get('/admin/health')).status).toBe(200);
    const printed = await adminLink(web);
    expect(printed.code).toBe(0);
    const link = (JSON.parse(printed.out) as { adminLoginUrl: string }).adminLoginUrl;
    expect(link.startsWith(`${web.url}/admin-login?code=`)).toBe(true);
    const second = new ConsoleClient(web.url);
    expect((await second.get('/admin/health')).status).toBe(403);
    expect((await second.get(pathOf(link))).status).toBe(303);
    expect((await second.get('/admin/health')).status).toBe(200);
    // The first admin is still one; the link works once.
    expect((await first.get('/admin/health')).status).toBe(200);
    const third = new ConsoleClient(web.url);
    const again = await third.get(pathOf(link));
    expect(again.status).toBe(403);
    expect(await again.text()).toContain('parley web admin-link');
    expect((await third.get('/admin/health')).status).toBe(403);
    // A newer link replaces an unused older one.
    const older = JSON.parse((await adminLink(web)).out).adminLoginUrl as string;
    const newer = JSON.parse((await adminLink(web)).out).adminLoginUrl as string;
    expect((await new ConsoleClient(web.url).get(pathOf(older))).status).toBe(403);
    expect((await new ConsoleClient(web.url).get(pathOf(newer))).status).toBe(303);
  });
});
