// Webhook mode: Feishu POSTs events and card callbacks here. The request is verified before the
// SDK's EventDispatcher sees it (the SDK checks the token only when an encrypt key is set, and
// answers any challenge): the verification token always, and with FEISHU_ENCRYPT_KEY the
// signature over the raw body and the freshness of its signed timestamp (the SDK never checks the
// time). A refused request changes nothing. Served by the process's one HTTP host (src/http) at
// /feishu/events; no server of its own.
import { createHash, timingSafeEqual } from 'node:crypto';
import { AESCipher, type EventDispatcher } from '@larksuiteoapi/node-sdk';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { CoreLogger } from '../../src/core/types.ts';
import { EventNotTaken } from './errors.ts';
import { StaleRequests } from './freshness.ts';

interface WebhookRequest {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface WebhookResponse {
  status: 200 | 400 | 401 | 500 | 503;
  body: unknown;
}

interface WebhookOptions {
  dispatcher: EventDispatcher;
  verificationToken: string;
  encryptKey: string | undefined;
  /** How far a signed request's timestamp may be from this host's clock, either way. */
  maxAgeMs: number;
  log: CoreLogger;
}

export const WEBHOOK_PATH = '/feishu/events';
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
function signatureOf(timestamp: string, nonce: string, encryptKey: string, body: string): string {
  return createHash('sha256')
    .update(timestamp + nonce + encryptKey + body)
    .digest('hex');
}

function tokenOf(payload: Record<string, unknown>): string {
  const head = payload.header;
  if (typeof head === 'object' && head !== null && typeof (head as Record<string, unknown>).token === 'string')
    return (head as { token: string }).token;
  return typeof payload.token === 'string' ? payload.token : '';
}

const refused = (status: 400 | 401, why: string): WebhookResponse => ({ status, body: { msg: why } });

async function handleWebhook(request: WebhookRequest, options: WebhookOptions, stale: StaleRequests): Promise<WebhookResponse> {
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
      if (!stale.fresh(timestamp)) return refused(401, 'stale request');
    }
    payload = plain;
  }
  if (!same(tokenOf(payload), options.verificationToken)) {
    log.warn({}, 'Feishu webhook: a request with a wrong verification token was refused (check FEISHU_VERIFICATION_TOKEN)');
    return refused(401, 'bad token');
  }
  if (payload.type === 'url_verification') return { status: 200, body: { challenge: payload.challenge } };
  // Verified above; the SDK only parses and dispatches.
  let result: unknown;
  try {
    result = await options.dispatcher.invoke(payload, { needCheck: false });
  } catch (error) {
    // Not acknowledged: Feishu pushes the event again later.
    if (error instanceof EventNotTaken) return { status: 503, body: { msg: error.message } };
    log.error({}, `Feishu webhook: handling an event failed: ${error instanceof Error ? error.message : String(error)}`);
    return { status: 500, body: { msg: 'internal error' } };
  }
  return { status: 200, body: typeof result === 'object' && result !== null ? result : {} };
}

/**
 * `POST /feishu/events` as a Hono app, for the process's one HTTP host (mounted at `/feishu`).
 * Until the channel has started (`ready()` false) requests get 503, so Feishu pushes them again.
 */
export function webhookApp(options: WebhookOptions & { ready: () => boolean }): Hono {
  const stale = new StaleRequests(options.log, options.maxAgeMs);
  const app = new Hono();
  app.post(WEBHOOK_PATH, bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ msg: 'too large' }, 413) }), async (c) => {
    if (!options.ready()) return c.json({ msg: 'not started yet' }, 503);
    const answer = await handleWebhook({ headers: c.req.header(), body: await c.req.text() }, options, stale);
    return c.json(answer.body as object, answer.status);
  });
  app.all(WEBHOOK_PATH, (c) => c.json({ msg: 'method not allowed' }, 405, { allow: 'POST' }));
  app.all('*', (c) => c.json({ msg: 'not found' }, 404));
  return app;
}
