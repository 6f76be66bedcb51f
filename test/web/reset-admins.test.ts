// `parley web reset-admins` against a running console: every admin browser is signed out at once
// (its cookie no longer makes it the operator, its open event streams end), everyone else stays who
// they are, and the link the command prints makes one browser the operator again, once.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.ts';
import { ConsoleClient } from './client.ts';
import { closeConsoles, startConsole, type WebConsole } from './console.ts';

afterEach(closeConsoles);

interface You {
  you: { id: string; admin: boolean };
}

async function resetAdmins(web: WebConsole): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runCli(['web', 'reset-admins'], {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      out += text;
    },
    isTTY: false,
    // The CLI finds the console's files beside the database, as npm start puts them.
    env: { DATABASE_URL: `file:${join(web.dataDir, 'parley.db')}`, PARLEY_HTTP_PORT: new URL(web.url).port },
    cwd: process.cwd(),
  });
  return { code, out };
}

function pathOf(link: string): string {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

describe('parley web reset-admins', () => {
  it('signs out every admin browser at once and prints a login link that works once', async () => {
    const web = await startConsole();
    const admin = new ConsoleClient(web.url);
    expect((await admin.get(pathOf(web.web.adminLoginUrl!))).status).toBe(303);
    const operator = (await admin.json<You>('/api/chat')).you;
    expect(operator.admin).toBe(true);
    const adminCookie = admin.cookie('parley_web_id')!;
    const stream = await admin.get('/api/events');
    expect(stream.status).toBe(200);
    const bob = new ConsoleClient(web.url);
    const bobId = await bob.id();

    const { code, out } = await resetAdmins(web);
    expect(code).toBe(0);
    expect(out).toMatch(/^Signed out every admin browser of the web console/);
    const printed = /New admin login: (\S+)/.exec(out)?.[1];
    expect(printed).toMatch(new RegExp(`^${web.url}/admin-login\\?code=[A-Za-z0-9_-]{32}$`));

    // The admin's cookie is now nobody's: that browser is a new, ordinary person.
    const signedOut = (await new ConsoleClient(web.url, { parley_web_id: adminCookie }).json<You>('/api/chat')).you;
    expect(signedOut.admin).toBe(false);
    expect(signedOut.id).not.toBe(operator.id);
    // Its open event stream (of the operator's own chat) ended.
    await stream.text();
    // Nobody else was signed out.
    expect(await bob.id()).toBe(bobId);

    const carol = new ConsoleClient(web.url);
    expect((await carol.get(pathOf(printed!))).status).toBe(303);
    expect((await carol.json<You>('/api/chat')).you).toEqual({ id: operator.id, admin: true });
    expect((await new ConsoleClient(web.url).get(pathOf(printed!))).status).toBe(403);
    expect((await new ConsoleClient(web.url, { parley_web_id: adminCookie }).json<You>('/api/chat')).you.admin).toBe(false);
  });
});
