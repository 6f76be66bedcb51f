// The model client's HTTP transport, handed to the openai SDK as its `fetch`: undici's request API
// (the same undici the global fetch runs on, with keep-alive) instead of fetch itself, whose spec
// machinery (Request objects, header guards, body mixins) cost about a third of the CPU of a
// streamed completion here (`npm run bench -- hotpath`). Redirects are followed and a compressed
// answer decoded, as fetch would; anything but a plain text body (or a Request as input) goes
// through the global fetch.
import { pipeline, Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, type Dispatcher, EnvHttpProxyAgent, interceptors, request } from 'undici';

const MAX_REDIRECTIONS = 5;
/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

type FetchInput = Parameters<typeof fetch>[0];
type FetchInit = NonNullable<Parameters<typeof fetch>[1]>;

function dispatcher(): Dispatcher {
  // As Node.js's fetch does: HTTP(S)_PROXY / NO_PROXY only when NODE_USE_ENV_PROXY asks for them.
  const base = process.env.NODE_USE_ENV_PROXY === '1' ? new EnvHttpProxyAgent() : new Agent();
  return base.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }));
}

/** Nothing asks for compression (no Accept-Encoding), but a server or proxy may compress anyway. */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}

export function modelFetch(): typeof fetch {
  let agent: Dispatcher | undefined;
  return async (input: FetchInput, init: FetchInit = {}) => {
    const sent = init.body ?? undefined;
    if (input instanceof Request || (sent !== undefined && typeof sent !== 'string')) return fetch(input, init);
    agent ??= dispatcher();
    const answer = await request(String(input), {
      method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: init.headers instanceof Headers ? init.headers : new Headers(init.headers),
      body: sent,
      signal: init.signal ?? undefined,
      dispatcher: agent,
    });
    const empty = NULL_BODY.has(answer.statusCode) || init.method === 'HEAD';
    if (empty) answer.body.resume();
    const headers = responseHeaders(answer.headers);
    let body: Readable | undefined = empty ? undefined : answer.body;
    if (body) {
      const decoder = DECODERS[headers.get('content-encoding')?.trim().toLowerCase() ?? ''];
      if (decoder) {
        body = pipeline(body, decoder(), () => {});
        // What the Response holds now is the decoded text.
        headers.delete('content-encoding');
        headers.delete('content-length');
      }
    }
    return new Response(body ? (Readable.toWeb(body) as ReadableStream<Uint8Array>) : null, { status: answer.statusCode, headers });
  };
}
