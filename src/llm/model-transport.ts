// The model client's HTTP transport: undici's request API (the same undici the global fetch runs
// on, with keep-alive), answering with Node.js streams. fetch's spec machinery (Request objects,
// header guards, web streams) and the SDK's per-request work cost more CPU than the rest of a
// streamed completion here (`npm run bench -- hotpath`). Redirects are followed and a compressed
// answer decoded, as fetch would.
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, type Dispatcher, EnvHttpProxyAgent, interceptors, request } from 'undici';

const MAX_REDIRECTIONS = 5;
/** Statuses whose answer has no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

export interface ModelResponse {
  status: number;
  headers: Headers;
  /** The answer's body, decoded; undefined for statuses that have none. Destroyed when the request's signal aborts. */
  body: Readable | undefined;
  /** The whole body as text (an error answer's); what could be read when it fails midway. */
  text(): Promise<string>;
}

export interface ModelTransport {
  post(url: string, headers: Record<string, string>, body: string | Uint8Array, signal: AbortSignal): Promise<ModelResponse>;
}

/** The dispatcher model requests use (also the model check's GET /models). */
export function dispatcher(): Dispatcher {
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

export function modelTransport(): ModelTransport {
  let agent: Dispatcher | undefined;
  return {
    async post(url, headers, body, signal) {
      agent ??= dispatcher();
      const answer = await request(url, { method: 'POST', headers, body, signal, dispatcher: agent });
      const responded = responseHeaders(answer.headers);
      if (NULL_BODY.has(answer.statusCode)) {
        answer.body.resume();
        return { status: answer.statusCode, headers: responded, body: undefined, text: async () => '' };
      }
      let decoded: Readable = answer.body;
      const decoder = DECODERS[responded.get('content-encoding')?.trim().toLowerCase() ?? ''];
      if (decoder) {
        decoded = pipeline(answer.body, decoder(), () => {});
        // What the body holds now is the decoded text.
        responded.delete('content-encoding');
        responded.delete('content-length');
      }
      return { status: answer.statusCode, headers: responded, body: decoded, text: () => bodyText(decoded) };
    },
  };
}

async function bodyText(body: Readable): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const piece of body) text += decoder.decode(piece as Uint8Array, { stream: true });
  } catch {
    // A cut-off error answer: its status says enough.
  }
  return text;
}
