// The console behind a TLS-terminating proxy: with PARLEY_WEB_PUBLIC_URL=https://... every cookie
// it sets is Secure and the links it prints use that address; over plain HTTP nothing changes. A
// public address other machines reach needs the access token, like a listener beyond loopback.
import { afterEach, describe, expect, it } from 'vitest';
import { webConfigFromEnv } from '../../adapters/web/index.ts';
import { closeConsoles, startConsole } from './console.ts';

const TOKEN = 'a-long-secret-token-0123456789';

afterEach(closeConsoles);

function setCookies(response: Response, name: string): string[] {
  return response.headers.getSetCookie().filter((cookie) => cookie.startsWith(`${name}=`));
}

describe('web console cookies over HTTPS', () => {
  it('are Secure when PARLEY_WEB_PUBLIC_URL is https, and the printed links use that address', async () => {
    const web = await startConsole({ webEnv: { PARLEY_WEB_TOKEN: TOKEN, PARLEY_WEB_PUBLIC_URL: 'https://bot.example.com/' } });
    const [address, login] = web.web.describe();
    expect(address).toBe('web console at https://bot.example.com');
    expect(login).toMatch(/^web admin login: https:\/\/bot\.example\.com\/admin-login\?code=/);
    // The proxy forwards to the listener: requests arrive there.
    const base = web.host.url;

    const page = await fetch(`${base}/?token=${TOKEN}`, { redirect: 'manual' });
    expect(page.status).toBe(303);
    const [tokenCookie] = setCookies(page, 'parley_web_token');
    expect(tokenCookie).toMatch(/; Secure/);

    const api = await fetch(`${base}/api/chat`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(api.status).toBe(200);
    expect(setCookies(api, 'parley_web_id')).toEqual([expect.stringMatching(/; Secure/)]);

    const admin = await fetch(`${base}${new URL(web.web.adminLoginUrl!).pathname}${new URL(web.web.adminLoginUrl!).search}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      redirect: 'manual',
    });
    expect(admin.status).toBe(303);
    expect(setCookies(admin, 'parley_web_id').every((cookie) => cookie.includes('; Secure'))).toBe(true);
  });

  it('are not Secure over plain HTTP', async () => {
    const web = await startConsole();
    const api = await fetch(`${web.url}/api/chat`);
    expect(setCookies(api, 'parley_web_id')).toEqual([expect.not.stringMatching(/Secure/)]);
  });

  it('a public address other machines reach needs the token, and is an origin only', () => {
    expect(() => webConfigFromEnv({ PARLEY_WEB_PUBLIC_URL: 'https://bot.example.com' })).toThrow(
      /PARLEY_WEB_PUBLIC_URL is https:\/\/bot\.example\.com, which other machines reach; set PARLEY_WEB_TOKEN/,
    );
    expect(() => webConfigFromEnv({ PARLEY_WEB_PUBLIC_URL: 'https://bot.example.com/parley', PARLEY_WEB_TOKEN: TOKEN })).toThrow(
      /PARLEY_WEB_PUBLIC_URL expects the console's origin only/,
    );
    expect(webConfigFromEnv({ PARLEY_WEB_PUBLIC_URL: 'https://localhost:8443' })).toMatchObject({ publicUrl: 'https://localhost:8443' });
  });
});
