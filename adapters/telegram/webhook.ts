// Webhook mode: the handler mounted on the process's one HTTP listener at the path of
// TELEGRAM_WEBHOOK_URL. grammY's webhookCallback checks the X-Telegram-Bot-Api-Secret-Token header
// and runs the update through the bot (it waits for the handler, which only records and enqueues).
// Before it: only POSTs to the exact path (404/405), at most 1 MB (413), a JSON object (400:
// Telegram would resend anything else forever), and 503 until the adapter has started. An update
// the bot failed to take gets 500, so Telegram delivers it again (the core de-duplicates).
import { timingSafeEqual } from 'node:crypto';
import { webhookCallback, type Bot } from 'grammy';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { CoreLogger, HttpHandler } from '../../src/core/types.ts';
import { safeErrorMessage } from './api-errors.ts';

export interface WebhookOptions {
  bot: Bot;
  secretToken: string;
  path: string;
  log: CoreLogger;
  /** Only used to scrub error messages. */
  token: string;
  /** False until the adapter has started (and after it stopped). */
  running(): boolean;
}

const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
const MAX_BODY_BYTES = 1024 * 1024;
/** Telegram waits for the answer before it sends more; answer by then even if still working. */
const ANSWER_WITHIN_MS = 10_000;

function secretMatches(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function isJsonObject(body: string): boolean {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function withoutTrailingSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

export function webhookHandler(options: WebhookOptions): HttpHandler {
  const { log, secretToken } = options;
  const path = withoutTrailingSlash(options.path);
  const callback = webhookCallback(options.bot, 'std/http', { secretToken, onTimeout: 'return', timeoutMilliseconds: ANSWER_WITHIN_MS });
  const app = new Hono();
  app.use(async (c, next) => {
    if (withoutTrailingSlash(c.req.path) !== path) return c.text('not found', 404);
    if (c.req.method !== 'POST') return c.text('method not allowed', 405, { allow: 'POST' });
    await next();
  });
  app.post('*', bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.text('too large', 413) }), async (c) => {
    if (!options.running()) return c.text('not running', 503, { 'retry-after': '5' });
    if (!secretMatches(c.req.header(SECRET_HEADER), secretToken)) {
      log.warn({}, 'webhook request without the right secret token refused');
      return c.text('unauthorized', 401);
    }
    if (!isJsonObject(await c.req.raw.clone().text())) {
      log.warn({}, 'webhook request with a body that is not a JSON object dropped');
      return c.text('bad request', 400);
    }
    return callback(c.req.raw);
  });
  app.onError((error, c) => {
    log.error({}, `webhook update failed: ${safeErrorMessage(error, options.token)}`);
    return c.text('error', 500);
  });
  return app.fetch;
}
