// The web console's HTTP API at the wire level: bad requests get a clear 4xx JSON error and never
// hurt the server; the event stream carries what the core sends, as the viewer sees it.
import { afterEach, describe, expect, it } from 'vitest';
import { settled } from '../helpers/harness.ts';
import { ConsoleClient, readEvents } from './client.ts';
import { closeConsoles, startConsole } from './console.ts';

afterEach(closeConsoles);

async function errorOf(response: Response): Promise<{ status: number; error: string }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: string };
  return { status: response.status, error: body.error };
}

describe('web console API', () => {
  it('answers malformed requests with 4xx JSON errors and keeps serving', async () => {
    const web = await startConsole();
    const client = new ConsoleClient(web.url);
    const cases: [() => Promise<Response>, number, RegExp][] = [
      [() => client.post('/api/messages', '{"name": '), 400, /Malformed JSON/],
      [() => client.post('/api/messages', ''), 400, /Malformed JSON/],
      [() => client.post('/api/messages', { name: 'A' }), 400, /text/],
      [() => client.post('/api/messages', { user: 'u-someone-else', name: 'A', text: 'hi' }), 400, /user: not accepted/],
      [() => client.post('/api/messages', { name: '   ', text: 'hi' }), 400, /name: expects a name/],
      [() => client.post('/api/messages', { name: 'A', text: '   ' }), 400, /text: expects some text/],
      [() => client.post('/api/messages', { name: 'A', text: 'x'.repeat(8_001) }), 400, /at most 8000 characters/],
      [() => client.post('/api/messages', { name: 'A', text: 'hi', room: '../etc' }), 400, /room/],
      [() => client.post('/api/messages', { name: 'A', text: 'hi', admin: true }), 400, /admin/],
      [() => client.post('/api/messages', [1, 2, 3]), 400, /invalid request body/],
      [() => client.post('/api/messages', { name: 'A', text: 'x'.repeat(70_000) }), 413, /larger than/],
      [() => client.post('/api/messages', { name: 'A', text: 'hi' }, { 'content-type': 'text/plain' }), 415, /application\/json/],
      [() => client.post('/api/actions', { name: 'A', messageId: 'nope', payload: 'ap:x:a' }), 404, /no such message/],
      [() => client.get('/api/chat?room=a%20b'), 400, /room/],
      [() => client.get('/api/chat?room=a&room=b'), 400, /room/],
      [() => client.get('/api/messages'), 405, /use POST/],
      [() => client.request('/api/chat', { method: 'PUT' }), 405, /use GET/],
      [() => client.get('/api/nothing'), 404, /not found/],
      [() => client.get('/assets/../../package.json'), 404, /not found/],
      [() => client.get('/assets/index.html'), 404, /not found/],
    ];
    for (const [send, status, message] of cases) {
      const error = await errorOf(await send());
      expect(error.status, error.error).toBe(status);
      expect(error.error).toMatch(message);
    }
    const page = await fetch(web.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await web.harness.store.sessions.list()).toEqual([]);
  });

  it('streams the chat over SSE, keeps the transcript, and only accepts buttons that are on a message', async () => {
    const web = await startConsole();
    const ann = new ConsoleClient(web.url);
    const annId = await ann.id();
    web.harness.model.enqueue({ text: 'Hi from the model.' });
    const events = await ann.get('/api/events');
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const posted = await ann.post('/api/messages', { name: 'Ann', text: 'hello' });
    expect(posted.status).toBe(202);
    const { events: seen } = await readEvents(events, (e) => e.event === 'entry' && JSON.stringify(e.data).includes('Hi from the model.'));
    const entries = seen
      .filter((e) => e.event === 'entry')
      .map((e) => e.data as { id: string; author: unknown; text: string; html?: string });
    expect(entries[0]).toMatchObject({ author: { name: 'Ann', isBot: false, you: true }, text: 'hello' });
    expect(entries.at(-1)).toMatchObject({
      author: { name: 'Parley', isBot: true, you: false },
      text: 'Hi from the model.',
      html: '<p>Hi from the model.</p>\n',
    });
    await settled(web.harness.store, `web:dm-${annId}`);

    const history = await ann.json<{ chat: unknown; you: unknown; entries: { text: string }[] }>('/api/chat');
    expect(history.chat).toEqual({ type: 'direct' });
    expect(history.you).toEqual({ id: annId, admin: false });
    expect(history.entries.map((e) => e.text)).toEqual(['hello', 'Hi from the model.']);

    const botMessage = entries.at(-1)!;
    const forged = await ann.post('/api/actions', { name: 'Ann', messageId: botMessage.id, payload: 'ap:forged:a' });
    expect(await errorOf(forged)).toEqual({ status: 409, error: 'this button is no longer there' });
    // Someone else's direct chat is not reachable: it is theirs because of their cookie, not an id in the request.
    const eve = new ConsoleClient(web.url);
    const elsewhere = await eve.post(`/api/actions?user=${annId}`, { name: 'Eve', messageId: botMessage.id, payload: 'ap:forged:a' });
    expect((await errorOf(elsewhere)).status).toBe(404);
    expect((await eve.json<{ entries: unknown[] }>(`/api/chat?user=${annId}`)).entries).toEqual([]);
  });

  it('serves HEAD of the event stream without opening one', async () => {
    const web = await startConsole({ webEnv: { PARLEY_WEB_MAX_STREAMS: '1' } });
    const client = new ConsoleClient(web.url);
    for (let i = 0; i < 3; i++) expect((await client.request('/api/events', { method: 'HEAD' })).status).toBe(200);
    const stream = await client.get('/api/events');
    expect(stream.status).toBe(200);
    await stream.body!.cancel();
  });
});

describe('web console address', () => {
  it('reports its address and a one-time admin login link for the ready block', async () => {
    const web = await startConsole();
    const port = new URL(web.url).port;
    const [console, admin, ...rest] = web.web.describe();
    expect(console).toBe(`web console at http://127.0.0.1:${port}`);
    expect(admin).toMatch(
      new RegExp(
        `^web admin login: http://127\\.0\\.0\\.1:${port}/admin-login\\?code=[A-Za-z0-9_-]{32} \\(works once; makes that browser an admin\\)$`,
      ),
    );
    expect(rest).toEqual([]);
  });
});
