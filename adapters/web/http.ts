// Errors the console answers with: a status and a message that go to the client as they are, as
// JSON for the API. Anything else is a bug: logged with its stack, answered with a plain 500.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { z } from 'zod';
import type { CoreLogger } from '../../src/core/types.ts';

export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
  }
}

export const MAX_BODY_BYTES = 64 * 1024;

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ');
}

/** Validates `value` with `schema`, or throws a 400 naming each bad field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(400, `invalid ${what}: ${describeIssues(result.error)}`);
  return result.data;
}

export function jsonError(c: Context, status: number, message: string, headers: Record<string, string> = {}): Response {
  return c.json({ error: message }, status as 400, { 'cache-control': 'no-store', ...headers });
}

/** The console's onError: known errors keep their status and message; the rest is a logged 500. */
export function errorHandler(log: CoreLogger) {
  return (error: Error, c: Context): Response => {
    if (error instanceof HttpError) return jsonError(c, error.status, error.message, error.headers);
    if (error instanceof HTTPException && error.status < 500) return jsonError(c, error.status, error.message || 'bad request');
    if (c.req.raw.signal.aborted) return jsonError(c, 499, 'the client went away');
    log.error({ err: error, method: c.req.method, path: c.req.path }, 'web console request failed');
    return jsonError(c, 500, 'internal error (details are in the log)');
  };
}
