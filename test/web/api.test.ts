// The web console's HTTP API at the wire level: bad requests get a clear 4xx JSON error and never
// hurt the server; the event stream carries what the core sends; the address in use is reported.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.ts';
import { WebAdapter, webConfigFromEnv } from '../../adapters/web/index.ts';
import { closeAll, settled } from '../helpers/harness.ts';
import { startConsole, type WebConsole } from './console.ts';

afterEach(closeAll);

const USER = 'tab-0123456789';

function postJson(web: WebConsole, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${web.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function errorOf(response: Response): Promise<{ status: number; error: string }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: string };
  return { status: response.status, error: body.error };
}

interface SseEvent {
  event: string;
  data: unknown;
}

/** Reads the event stream until `until` matches an event; returns everything read. */
async function readEvents(response: Response, until: (event: SseEvent) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the event stream ended');
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (!event || data === undefined) continue;
      events.push({ event, data: JSON.parse(data) });
      if (until(events.at(-1)!)) {
        await reader.cancel();
        return events;
      }
    }
  }
}

describe('web console API', () => {
  it('answers malformed requests with 4xx JSON errors and keeps serving', async () => {
    const web = await startConsole();
    const cases: [Promise<Response>, number, RegExp][] = [
      [postJson(web, '/api/messages', '{"user": ', {}), 400, /not valid JSON/],
      [postJson(web, '/api/messages', { user: USER, name: 'A' }), 400, /text/],
      [postJson(web, '/api/messages', { user: 'x', name: 'A', text: 'hi' }), 400, /user: expects 8-64 letters/],
      [postJson(web, '/api/messages', { user: USER, name: '   ', text: 'hi' }), 400, /name: expects a name/],
      [postJson(web, '/api/messages', { user: USER, name: 'A', text: '   ' }), 400, /text: expects some text/],
      [postJson(web, '/api/messages', { user: USER, name: 'A', text: 'x'.repeat(8_001) }), 400, /at most 8000 characters/],
      [postJson(web, '/api/messages', { user: USER, name: 'A', text: 'hi', room: '../etc' }), 400, /room/],
      [postJson(web, '/api/messages', { user: USER, name: 'A', text: 'hi', admin: true }), 400, /admin/],
      [postJson(web, '/api/messages', [1, 2, 3]), 400, /invalid request body/],
      [postJson(web, '/api/messages', { user: USER, name: 'A', text: 'x'.repeat(70_000) }), 413, /larger than/],
      [postJson(web, '/api/messages', { user: USER, name: 'A', text: 'hi' }, { 'content-type': 'text/plain' }), 415, /application\/json/],
      [postJson(web, '/api/actions', { user: USER, name: 'A', messageId: 'nope', payload: 'ap:x:a' }), 404, /no such message/],
      [fetch(`${web.url}/api/chat`), 400, /user/],
      [fetch(`${web.url}/api/chat?user=${USER}&room=a%20b`), 400, /room/],
      [fetch(`${web.url}/api/messages`), 405, /use POST/],
      [fetch(`${web.url}/api/nothing`), 404, /not found/],
      [fetch(`${web.url}/assets/../../package.json`), 404, /not found/],
    ];
    for (const [response, status, message] of cases) {
      const error = await errorOf(await response);
      expect(error.status, error.error).toBe(status);
      expect(error.error).toMatch(message);
    }
    const page = await fetch(web.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await web.harness.store.sessions.getByKey(`web:dm-${USER}`)).toBeUndefined();
  });

  it('streams the chat over SSE, keeps the transcript, and only accepts buttons that are on a message', async () => {
    const web = await startConsole();
    web.harness.model.enqueue({ text: 'Hi from the model.' });
    const events = await fetch(`${web.url}/api/events?user=${USER}`);
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const posted = await postJson(web, '/api/messages', { user: USER, name: 'Ann', text: 'hello' });
    expect(posted.status).toBe(202);
    const seen = await readEvents(events, (e) => e.event === 'entry' && JSON.stringify(e.data).includes('Hi from the model.'));
    const entries = seen.filter((e) => e.event === 'entry').map((e) => e.data as { id: string; author: { name: string }; text: string; html?: string });
    expect(entries[0]).toMatchObject({ author: { name: 'Ann' }, text: 'hello' });
    expect(entries.at(-1)).toMatchObject({ author: { name: 'Parley' }, text: 'Hi from the model.', html: '<p>Hi from the model.</p>\n' });
    await settled(web.harness.store, `web:dm-${USER}`);

    const history = (await (await fetch(`${web.url}/api/chat?user=${USER}`)).json()) as { chat: unknown; entries: { text: string }[] };
    expect(history.chat).toEqual({ chatId: `dm-${USER}`, chatType: 'direct' });
    expect(history.entries.map((e) => e.text)).toEqual(['hello', 'Hi from the model.']);

    const botMessage = entries.at(-1)!;
    const forged = await postJson(web, '/api/actions', { user: USER, name: 'Ann', messageId: botMessage.id, payload: 'ap:forged:a' });
    expect(await errorOf(forged)).toEqual({ status: 409, error: 'this button is no longer there' });
    // Another person's direct chat is not reachable with one's own id.
    const elsewhere = await postJson(web, '/api/actions', { user: 'someone-else-42', name: 'Eve', messageId: botMessage.id, payload: 'ap:forged:a' });
    expect((await errorOf(elsewhere)).status).toBe(404);
  });
});

describe('web console listening', () => {
  let blocker: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
    blocker = undefined;
  });

  it('reports its address for the ready block', async () => {
    const web = await startConsole();
    expect(web.web.describe()).toEqual([`web console at http://127.0.0.1:${new URL(web.url).port}`]);
  });

  it('fails to start with one clear line when the port is taken', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    const adapter = new WebAdapter({ config: webConfigFromEnv({ PARLEY_WEB_PORT: String(port) })!, botName: 'Parley', log: silentLogger });
    const sink = { onMessage: async () => {}, onAction: async () => {} };
    await expect(adapter.start(sink)).rejects.toThrow(
      `web console: http://127.0.0.1:${port} is already in use; set PARLEY_WEB_PORT to a free port (or PARLEY_WEB=off)`,
    );
    await adapter.stop();
  });
});
