// Who is who on the web console, from outside over real HTTP: the server's signed cookie decides,
// an id named in a body, a query, a display name or a hand-made cookie grants nothing, other
// people's ids never appear in what the API returns, and admin rights come only from the
// operator's secret (the one-time login link, or PARLEY_ADMINS with a server-minted id).
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { waitFor } from '../helpers/harness.ts';
import { ConsoleClient, readEvents } from './client.ts';
import { closeConsoles, startConsole, type WebConsole } from './console.ts';

const deployed: string[] = [];
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service to production',
  parameters: z.object({ service: z.string() }),
  approval: 'always',
  describe: ({ service }) => `deploy ${service} to production`,
  async execute({ service }) {
    deployed.push(service);
    return `deployed ${service}`;
  },
}) as AnyTool;

interface Entry {
  id: string;
  text: string;
  buttons: { label: string; payload: string }[][];
}

afterEach(async () => {
  deployed.length = 0;
  await closeConsoles();
});

/** Alice asks the bot in room "ops" for a gated deploy; resolves with the prompt and its Approve payload. */
async function aliceAsks(web: WebConsole, alice: ConsoleClient): Promise<{ prompt: Entry; approve: string }> {
  web.harness.model.enqueue({ toolCalls: [{ name: 'deploy', arguments: { service: 'web' } }] }, { text: 'Deployed.' });
  expect((await alice.post('/api/messages', { name: 'Alice', room: 'ops', text: '@Parley deploy the web service' })).status).toBe(202);
  const prompt = await waitFor(async () => {
    const { entries } = await alice.json<{ entries: Entry[] }>('/api/chat?room=ops');
    return entries.find((e) => e.buttons?.length);
  }, 'the approval prompt');
  const approve = prompt.buttons.flat().find((b) => b.label === 'Approve')!.payload;
  return { prompt, approve };
}

async function press(client: ConsoleClient, prompt: Entry, payload: string, extra: Record<string, unknown> = {}, path = '/api/actions') {
  const response = await client.post(path, { name: 'Bob', room: 'ops', messageId: prompt.id, payload, ...extra });
  return { status: response.status, body: (await response.json()) as { toast?: string | null; error?: string } };
}

async function pendingCount(web: WebConsole): Promise<number> {
  return (await web.harness.store.approvals.list({ status: 'pending' })).length;
}

describe('web console identity', () => {
  it('refuses a stranger who names the requester anywhere in the request, and changes nothing', async () => {
    const web = await startConsole({ tools: [deploy] });
    const alice = new ConsoleClient(web.url);
    const aliceId = await alice.id();
    const { prompt, approve } = await aliceAsks(web, alice);

    const bob = new ConsoleClient(web.url);
    const bobId = await bob.id();
    expect(bobId).not.toBe(aliceId);
    // What Bob can read of the room names Alice, never her id.
    const room = await bob.get('/api/chat?room=ops');
    const roomText = await room.text();
    expect(roomText).toContain('Alice');
    expect(roomText).not.toContain(aliceId);

    const refusal = 'Only Alice (who asked) or an admin can decide this.';
    const bobSignature = decodeURIComponent(bob.cookie('parley_web_id')!).split('.').slice(1).join('.');
    const attempts = [
      // Her id in the body: refused outright.
      await press(bob, prompt, approve, { user: aliceId }),
      // Her id in the query: ignored, so Bob is Bob.
      await press(bob, prompt, approve, {}, `/api/actions?user=${aliceId}`),
      // Her name: cosmetic.
      await press(bob, prompt, approve, { name: 'Alice' }),
      // A hand-made cookie with her id, unsigned or with Bob's signature: not hers, so a new stranger.
      await press(new ConsoleClient(web.url, { parley_web_id: aliceId }), prompt, approve),
      await press(new ConsoleClient(web.url, { parley_web_id: encodeURIComponent(`${aliceId}.${bobSignature}`) }), prompt, approve),
    ];
    expect(attempts[0]).toMatchObject({ status: 400, body: { error: expect.stringMatching(/user: not accepted/) } });
    for (const attempt of attempts.slice(1)) expect(attempt).toEqual({ status: 200, body: { toast: refusal } });
    expect(await pendingCount(web)).toBe(1);
    expect(deployed).toEqual([]);
    const audit = await web.harness.store.audit.list({});
    expect(audit.filter((a) => a.outcome === 'approved')).toEqual([]);

    // Alice herself (her cookie) decides.
    expect(await press(alice, prompt, approve, { name: 'Alice' })).toEqual({ status: 200, body: { toast: 'Approved.' } });
    await waitFor(() => deployed.length === 1, 'the deploy');
    expect(deployed).toEqual(['web']);
  });

  it("never shows another person's id on the event stream", async () => {
    const web = await startConsole();
    const alice = new ConsoleClient(web.url);
    const aliceId = await alice.id();
    const bob = new ConsoleClient(web.url);
    const stream = await bob.get('/api/events?room=lobby');
    expect(stream.status).toBe(200);
    await alice.post('/api/messages', { name: 'Alice', room: 'lobby', text: 'hello lobby' });
    const { events, raw } = await readEvents(stream, (e) => e.event === 'entry');
    expect(events[0]!.data).toMatchObject({ text: 'hello lobby', author: { name: 'Alice', isBot: false, you: false } });
    expect(raw).not.toContain(aliceId);
  });

  it('makes a browser an admin only through the one-time login link', async () => {
    const web = await startConsole({ tools: [deploy] });
    const alice = new ConsoleClient(web.url);
    const { prompt, approve } = await aliceAsks(web, alice);

    const bob = new ConsoleClient(web.url);
    await bob.id();
    // Calling oneself admin, or guessing at the login, gets nowhere.
    expect((await press(bob, prompt, approve, { name: 'admin' })).body.toast).toMatch(/^Only Alice/);
    for (const path of ['/admin-login', '/admin-login?code=', '/admin-login?code=guess', `/admin-login?code=${'A'.repeat(32)}`]) {
      const response = await bob.get(path);
      expect(response.status, path).toBe(403);
      expect(await response.text()).toMatch(/wrong or was already used/);
    }
    expect((await bob.json<{ you: { admin: boolean } }>('/api/chat')).you.admin).toBe(false);
    expect(await pendingCount(web)).toBe(1);

    // The operator opens the link printed in the ready block.
    const link = new URL(web.web.adminLoginUrl!);
    const carol = new ConsoleClient(web.url);
    const login = await carol.get(`${link.pathname}${link.search}`);
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/');
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('parley_web_id='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(await carol.json<{ you: unknown }>('/api/chat')).toMatchObject({ you: { admin: true } });

    // The link works once.
    const dave = new ConsoleClient(web.url);
    expect((await dave.get(`${link.pathname}${link.search}`)).status).toBe(403);
    expect((await dave.json<{ you: { admin: boolean } }>('/api/chat')).you.admin).toBe(false);

    expect(await press(carol, prompt, approve, { name: 'Carol' })).toEqual({ status: 200, body: { toast: 'Approved.' } });
    await waitFor(() => deployed.length === 1, 'the deploy');
  });

  it("keeps a browser's identity across a restart, so PARLEY_ADMINS=web:<id> can name it", async () => {
    const secret = 'a-per-install-secret-for-this-test-0123456789';
    const first = await startConsole({ webEnv: { PARLEY_WEB_SECRET: secret } });
    const bob = new ConsoleClient(first.url);
    const bobId = await bob.id();
    await closeConsoles();

    const web = await startConsole({ tools: [deploy], webEnv: { PARLEY_WEB_SECRET: secret }, env: { PARLEY_ADMINS: `web:${bobId}` } });
    const again = new ConsoleClient(web.url, { parley_web_id: bob.cookie('parley_web_id')! });
    expect(await again.json<{ you: unknown }>('/api/chat')).toMatchObject({ you: { id: bobId, admin: true } });
    const { prompt, approve } = await aliceAsks(web, new ConsoleClient(web.url));
    expect(await press(again, prompt, approve)).toEqual({ status: 200, body: { toast: 'Approved.' } });
    await waitFor(() => deployed.length === 1, 'the deploy');
  });
});
