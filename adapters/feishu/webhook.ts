// Webhook mode: Feishu POSTs events and card callbacks here. The request is verified before the
// SDK's EventDispatcher sees it (the SDK checks the token only when an encrypt key is set, and
// answers any challenge): the verification token always, and with FEISHU_ENCRYPT_KEY the
// signature over the raw body. A refused request changes nothing. `handleWebhook` is
// transport-free so the shared HTTP host can serve it; `startWebhookServer` is the stand-in host.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AESCipher, type EventDispatcher } from '@larksuiteoapi/node-sdk';
import type { CoreLogger } from '../../src/core/types.ts';

export interface WebhookRequest {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface WebhookResponse {
  status: number;
  body: unknown;
}

export interface WebhookOptions {
  dispatcher: EventDispatcher;
  verificationToken: string;
  encryptKey: string | undefined;
  log: CoreLogger;
}

const MAX_BODY_BYTES = 1024 * 1024;

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function header(headers: WebhookRequest['headers'], name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

function objectOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Feishu's signature: sha256(timestamp + nonce + encrypt key + raw body), hex. */
export function signatureOf(timestamp: string, nonce: string, encryptKey: string, body: string): string {
  return createHash('sha256').update(timestamp + nonce + encryptKey + body).digest('hex');
}

function tokenOf(payload: Record<string, unknown>): string {
  const head = payload.header;
  if (typeof head === 'object' && head !== null && typeof (head as Record<string, unknown>).token === 'string') return (head as { token: string }).token;
  return typeof payload.token === 'string' ? payload.token : '';
}

const refused = (status: number, why: string): WebhookResponse => ({ status, body: { msg: why } });

export async function handleWebhook(request: WebhookRequest, options: WebhookOptions): Promise<WebhookResponse> {
  const { log, encryptKey } = options;
  const outer = objectOf(request.body);
  if (!outer) return refused(400, 'body is not a JSON object');
  let payload = outer;
  if (encryptKey) {
    if (typeof outer.encrypt !== 'string') {
      log.warn({}, 'Feishu webhook: unencrypted request refused (FEISHU_ENCRYPT_KEY is set)');
      return refused(401, 'encryption expected');
    }
    let plain: Record<string, unknown> | undefined;
    try {
      plain = objectOf(new AESCipher(encryptKey).decrypt(outer.encrypt));
    } catch {
      plain = undefined;
    }
    if (!plain) {
      log.warn({}, 'Feishu webhook: a request that does not decrypt with FEISHU_ENCRYPT_KEY was refused');
      return refused(401, 'cannot decrypt');
    }
    // The URL check carries no signature headers; its token (inside the ciphertext) vouches for it.
    if (plain.type !== 'url_verification') {
      const timestamp = header(request.headers, 'x-lark-request-timestamp');
      const nonce = header(request.headers, 'x-lark-request-nonce');
      const signature = header(request.headers, 'x-lark-signature');
      if (!signature || !same(signature, signatureOf(timestamp, nonce, encryptKey, request.body))) {
        log.warn({}, 'Feishu webhook: a request with a wrong signature was refused');
        return refused(401, 'bad signature');
      }
    }
    payload = plain;
  }
  if (!same(tokenOf(payload), options.verificationToken)) {
    log.warn({}, 'Feishu webhook: a request with a wrong verification token was refused (check FEISHU_VERIFICATION_TOKEN)');
    return refused(401, 'bad token');
  }
  if (payload.type === 'url_verification') return { status: 200, body: { challenge: payload.challenge } };
  // Verified above; the SDK only parses and dispatches.
  const result = await options.dispatcher.invoke(payload, { needCheck: false });
  return { status: 200, body: typeof result === 'object' && result !== null ? result : {} };
}

export interface WebhookServer {
  readonly address: { host: string; port: number };
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/** Serves `path` until the shared HTTP host takes over `/feishu/events`. */
export async function startWebhookServer(options: WebhookOptions & { host: string; port: number; path: string }): Promise<WebhookServer> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (new URL(req.url ?? '/', 'http://localhost').pathname !== options.path) return send(res, 404, { msg: 'not found' });
      if (req.method !== 'POST') return send(res, 405, { msg: 'method not allowed' });
      const body = await readBody(req);
      if (body === undefined) return send(res, 413, { msg: 'too large' });
      const answer = await handleWebhook({ headers: req.headers, body }, options);
      send(res, answer.status, answer.body);
    })().catch((error: unknown) => {
      options.log.error({}, `Feishu webhook request failed: ${error instanceof Error ? error.message : String(error)}`);
      send(res, 500, { msg: 'error' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    address: { host: bound.address, port: bound.port },
    async close() {
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
