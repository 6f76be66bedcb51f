// The local HTTP server Telegram posts updates to in webhook mode. Only POSTs to the webhook's path
// that carry the right X-Telegram-Bot-Api-Secret-Token header are accepted (401 otherwise); bodies
// that are not a JSON object get 400 (Telegram would resend anything else forever). An update the
// bot failed to take gets 500, so Telegram delivers it again (the core de-duplicates).
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Bot } from 'grammy';
import type { Update } from 'grammy/types';
import type { CoreLogger } from '../../src/core/types.ts';
import { safeErrorMessage } from './api-errors.ts';

export interface WebhookServerOptions {
  bot: Bot;
  secretToken: string;
  host: string;
  port: number;
  path: string;
  log: CoreLogger;
  /** Only used to scrub error messages. */
  token: string;
}

export interface WebhookServer {
  readonly address: { host: string; port: number };
  close(): Promise<void>;
}

export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
const MAX_BODY_BYTES = 1024 * 1024;
/** Telegram waits for the answer before it sends more; answer by then even if still working. */
const ANSWER_WITHIN_MS = 10_000;

function secretMatches(header: string | string[] | undefined, expected: string): boolean {
  const given = Buffer.from(Array.isArray(header) ? (header[0] ?? '') : (header ?? ''));
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
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

function parseUpdate(body: string): object | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function answer(res: ServerResponse, status: number, text: string): void {
  if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
}

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const { bot, log } = options;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== options.path) return answer(res, 404, 'not found');
    if (req.method !== 'POST') return answer(res, 405, 'method not allowed');
    if (!secretMatches(req.headers[SECRET_HEADER], options.secretToken)) {
      log.warn({ remote: req.socket.remoteAddress }, 'webhook request without the right secret token refused');
      req.resume();
      return answer(res, 401, 'unauthorized');
    }
    const body = await readBody(req);
    if (body === undefined) return answer(res, 413, 'too large');
    const update = parseUpdate(body);
    if (!update) {
      log.warn({}, 'webhook request with a body that is not a JSON object dropped');
      return answer(res, 400, 'bad request');
    }
    const answerAnyway = setTimeout(() => answer(res, 200, ''), ANSWER_WITHIN_MS);
    try {
      // The middleware validates the update with zod; grammY only needs it to be an object.
      await bot.handleUpdate(update as Update);
      answer(res, 200, '');
    } catch (error) {
      log.error({}, `webhook update failed: ${safeErrorMessage(error, options.token)}`);
      answer(res, 500, 'error');
    } finally {
      clearTimeout(answerAnyway);
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.warn({}, `webhook request failed: ${safeErrorMessage(error, options.token)}`);
      answer(res, 500, 'error');
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
