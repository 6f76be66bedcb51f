// Property: whatever arrives at the console's API over real HTTP (any method, query, headers,
// cookie and body: JSON, near-valid JSON, text, bytes), the answer is never a 5xx, the server
// never falls over, and bad input always gets a 4xx with a JSON error naming the problem.
import { Agent, request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from './client.ts';
import { closeConsoles, startConsole, type WebConsole } from './console.ts';

interface Attempt {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

interface Answer {
  status: number;
  type: string;
  text: string;
}

/** Each route with the method it serves (used most of the time, so requests get past the 405). */
const ROUTES: Record<string, string> = { '/api/chat': 'GET', '/api/events': 'GET', '/api/messages': 'POST', '/api/actions': 'POST' };
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];

const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 40 });
const anyText = fc.string({ unit: 'grapheme', maxLength: 60 });
// Characters a request line may carry (no space, no '#'), stray '%' escapes included.
const rawQuery = fc.string({ unit: fc.constantFrom(...'abcAZ09-_.~!$&\'()*+,;=:@/?%[]{}|^`"<>\\'.split('')), maxLength: 40 });

const queryPart = fc.oneof(
  fc
    .dictionary(
      fc.constantFrom('room', 'user', 'token', 'name', 'x'),
      fc.oneof(anyText, fc.constantFrom('ops', 'a'.repeat(41), '../etc', '')),
    )
    .map((params) => new URLSearchParams(params).toString()),
  rawQuery,
);

/** Mostly-valid bodies for the route, each field sometimes wrong, sometimes with a stray key. */
function nearValid(route: string, validCookieId: string) {
  const good = <T>(value: T, bad: fc.Arbitrary<unknown>) => fc.oneof({ weight: 3, arbitrary: fc.constant(value) }, bad);
  const name = good('Ann', fc.oneof(anyText, fc.constantFrom('', '   ', 'x'.repeat(41)), fc.integer(), fc.constant(null)));
  const room = fc.option(good('ops', fc.oneof(fc.constantFrom('lobby', '../etc', ''), anyText, fc.array(fc.string()))), { nil: undefined });
  const fields: Record<string, fc.Arbitrary<unknown>> = route === '/api/actions'
    ? {
        name,
        room,
        messageId: good('no-such-message', fc.oneof(anyText, fc.constant(''))),
        payload: good('ap:x:a', fc.oneof(anyText, fc.constant('x'.repeat(65)))),
      }
    : {
        name,
        room,
        text: good(
          'hi',
          fc.oneof(anyText, fc.constantFrom('   ', '@Parley hello'), fc.string({ minLength: 7_990, maxLength: 8_010 }), fc.boolean()),
        ),
      };
  const stray = fc.option(
    fc.oneof(
      fc.record({ user: fc.oneof(fc.constant(validCookieId), anyText) }),
      fc.record({ admin: fc.constant(true) }),
      fc.record({ extra: fc.jsonValue({ maxDepth: 2 }) }),
    ),
    { freq: 4, nil: {} },
  );
  return fc.tuple(fc.record(fields), stray).map(([body, extra]) => JSON.stringify({ ...body, ...extra }));
}

function attempts(cookie: string, id: string) {
  return fc.constantFrom(...Object.keys(ROUTES)).chain((route) => {
    const body = fc.oneof(
      { weight: 4, arbitrary: nearValid(route, id) },
      fc.json({ maxDepth: 3 }),
      anyText,
      fc.uint8Array({ maxLength: 200 }),
      fc.constant(undefined),
    );
    const contentType = fc.oneof(
      { weight: 3, arbitrary: fc.constant('application/json') },
      fc.constantFrom(
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/vnd.api+json',
      ),
      printable,
    );
    const cookieHeader = fc.oneof(
      { weight: 3, arbitrary: fc.constant(cookie) },
      fc.constantFrom(
        `parley_web_id=${id}`,
        `parley_web_id=${id}.AAAA`,
        'parley_web_id=%E0%A4%A',
        `${cookie}; ${cookie}`,
        'parley_web_id="',
      ),
      printable,
    );
    return fc
      .record({
        method: fc.oneof({ weight: 4, arbitrary: fc.constant(ROUTES[route]!) }, fc.constantFrom(...METHODS)),
        query: fc.option(queryPart),
        headers: fc.record(
          { 'content-type': contentType, cookie: cookieHeader, authorization: printable, accept: printable, 'x-anything': printable },
          { requiredKeys: [] },
        ),
        body,
      })
      .map(
        ({ method, query, headers, body: sent }): Attempt => ({
          method,
          path: query ? `${route}?${query}` : route,
          headers,
          body: method === 'GET' || method === 'HEAD' ? undefined : sent,
        }),
      );
  });
}

let web: WebConsole;
let agent: Agent;
let port: number;
let client: ConsoleClient;

beforeAll(async () => {
  // No model: a valid message gets the "not configured" answer, which keeps each one cheap.
  web = await startConsole({ noModel: true, webEnv: { PARLEY_WEB_MAX_STREAMS: '20' } });
  port = Number(new URL(web.url).port);
  agent = new Agent({ keepAlive: true, maxSockets: 4 });
  client = new ConsoleClient(web.url);
  await client.id();
});
afterAll(async () => {
  agent.destroy();
  await closeConsoles();
});

function send(attempt: Attempt): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // A declared length, so every method frames its body the same way (malformed framing is the host's test).
    const headers =
      attempt.body === undefined ? attempt.headers : { ...attempt.headers, 'content-length': String(Buffer.byteLength(attempt.body)) };
    const req = request({ host: '127.0.0.1', port, method: attempt.method, path: attempt.path, headers, agent }, (res) => {
      const type = String(res.headers['content-type'] ?? '');
      const status = res.statusCode ?? 0;
      if (type.startsWith('text/event-stream')) {
        // An open event stream: that is a success; hang up so its slot is freed.
        req.destroy();
        resolve({ status, type, text: '' });
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status, type, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(attempt.body);
  });
}

describe('web console API under arbitrary input', () => {
  it('never answers 5xx, and answers bad input with a 4xx JSON error', async () => {
    const cookie = client.cookieHeader;
    const id = await client.id();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(attempts(cookie, id), async (attempt) => {
        const answer = await send(attempt);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        expect(answer.status, `${attempt.method} ${attempt.path}: ${answer.text}`).toBeLessThan(500);
        if (answer.status >= 400 && attempt.method !== 'HEAD') {
          expect(answer.type, `${attempt.method} ${attempt.path}`).toMatch(/^application\/json/);
          const error = (JSON.parse(answer.text) as { error?: unknown }).error;
          expect(typeof error === 'string' && error.length > 0, answer.text).toBe(true);
        }
      }),
      { seed: 42, numRuns: 2_000 },
    );
    // Accepted messages, opened streams and every kind of refusal were all exercised; the console still serves.
    expect([...statuses.keys()]).toEqual(expect.arrayContaining([200, 202, 400, 404, 405, 415]));
    expect((await client.get('/api/chat')).status).toBe(200);
    expect((await fetch(web.url)).status).toBe(200);
  });
});
