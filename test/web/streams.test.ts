// Event streams are capped per browser and in total, over real sockets: the excess gets a JSON
// 429/503 while the page still loads, and a closed stream (the client hung up) frees its slot.
import { request, type ClientRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/harness.ts';
import { ConsoleClient } from './client.ts';
import { closeConsoles, startConsole } from './console.ts';

interface Stream {
  status: number;
  /** The JSON error of a refused stream. */
  error?: string;
  contentType: string;
  /** Hangs up (destroys the socket). */
  close(): void;
  /** Text received so far (open streams). */
  received(): string;
}

const open: ClientRequest[] = [];
afterEach(async () => {
  for (const req of open.splice(0)) req.destroy();
  await closeConsoles();
});

/** Opens /api/events on its own socket as the browser holding `cookie`. */
function openStream(base: string, cookie: string, path = '/api/events'): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { agent: false, headers: { cookie } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', () => {});
      const stream: Stream = {
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type'] ?? ''),
        close: () => req.destroy(),
        received: () => text,
      };
      if (stream.status === 200) {
        resolve(stream);
        return;
      }
      res.on('end', () => {
        stream.error = (JSON.parse(text) as { error: string }).error;
        resolve(stream);
      });
    });
    req.on('error', reject);
    open.push(req);
    req.end();
  });
}

async function person(base: string): Promise<string> {
  const client = new ConsoleClient(base);
  await client.id();
  return client.cookieHeader;
}

describe('web console event streams', () => {
  it("refuses a browser's streams beyond its cap with 429, and beyond the total with 503, while the page loads", async () => {
    const web = await startConsole({ webEnv: { PARLEY_WEB_MAX_STREAMS_PER_USER: '3', PARLEY_WEB_MAX_STREAMS: '5' } });
    const [alice, bob, carol] = [await person(web.url), await person(web.url), await person(web.url)];

    const alices = [await openStream(web.url, alice), await openStream(web.url, alice), await openStream(web.url, alice)];
    expect(alices.map((s) => s.status)).toEqual([200, 200, 200]);
    expect(alices[0]!.contentType).toMatch(/^text\/event-stream/);
    const fourth = await openStream(web.url, alice);
    expect(fourth.status).toBe(429);
    expect(fourth.contentType).toMatch(/^application\/json/);
    expect(fourth.error).toMatch(/this browser already has 3 open event streams.*PARLEY_WEB_MAX_STREAMS_PER_USER/);

    // The page and the history still load for Alice.
    const page = await fetch(web.url, { headers: { cookie: alice } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('id="composer"');
    expect((await fetch(`${web.url}/api/chat`, { headers: { cookie: alice } })).status).toBe(200);

    // Another browser has its own allowance, up to the total of 5.
    const bobs = [await openStream(web.url, bob), await openStream(web.url, bob)];
    expect(bobs.map((s) => s.status)).toEqual([200, 200]);
    const over = await openStream(web.url, carol);
    expect(over.status).toBe(503);
    expect(over.error).toMatch(/the console has 5 open event streams.*PARLEY_WEB_MAX_STREAMS/);
    expect((await fetch(web.url, { headers: { cookie: carol } })).status).toBe(200);

    // Hanging up frees the slot (unsubscribe on abort): Carol gets in once one of Bob's is gone.
    bobs[0]!.close();
    const carols = await waitFor(
      async () => {
        const attempt = await openStream(web.url, carol);
        if (attempt.status === 200) return attempt;
        attempt.close();
        return undefined;
      },
      'a freed stream slot',
      10_000,
    );
    expect(carols.status).toBe(200);

    // And Alice gets a fourth once one of hers is gone.
    alices[0]!.close();
    const again = await waitFor(
      async () => {
        const attempt = await openStream(web.url, alice);
        if (attempt.status === 200) return attempt;
        attempt.close();
        return undefined;
      },
      'a freed stream of Alice',
      10_000,
    );
    expect(again.status).toBe(200);

    // The open streams still carry the room's news; the closed ones were unsubscribed.
    bobs[1]!.close();
    const roomStream = await waitFor(
      async () => {
        const attempt = await openStream(web.url, bob, '/api/events?room=ops');
        if (attempt.status === 200) return attempt;
        attempt.close();
        return undefined;
      },
      'a stream of the room',
      10_000,
    );
    const poster = new ConsoleClient(web.url);
    expect((await poster.post('/api/messages', { name: 'Dan', room: 'ops', text: 'anyone here?' })).status).toBe(202);
    await waitFor(() => roomStream.received().includes('anyone here?'), 'the message on the stream');
  });
});
