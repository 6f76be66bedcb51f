// Who may use the console. With PARLEY_WEB_TOKEN set, every API request carries the token as
// `Authorization: Bearer <token>` or in the cookie the page sets after it was opened once with
// `?token=<token>`. Without a token (loopback only) the Host header must name this machine, so a
// web page elsewhere cannot reach the console through DNS rebinding.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from './config.ts';

export const TOKEN_COOKIE = 'parley_web_token';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key !== name) continue;
    try {
      return decodeURIComponent(rest.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export class AccessGuard {
  readonly #expected: Buffer | undefined;

  constructor(token: string | undefined) {
    this.#expected = token === undefined ? undefined : digest(token);
  }

  get required(): boolean {
    return this.#expected !== undefined;
  }

  /** Constant-time comparison (of digests, so the token's length does not leak either). */
  matches(candidate: string | undefined): boolean {
    if (!this.#expected) return true;
    if (candidate === undefined) return false;
    return timingSafeEqual(digest(candidate), this.#expected);
  }

  /** The request carries the token in its Authorization header or cookie. */
  allows(req: IncomingMessage): boolean {
    if (!this.#expected) return true;
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    return this.matches(bearer) || this.matches(cookieValue(req.headers.cookie, TOKEN_COOKIE));
  }

  /** Set-Cookie value that lets the page's own requests (fetch, EventSource) carry the token. */
  cookieFor(token: string): string {
    return `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`;
  }

  /** Without a token, only requests addressed to a loopback host name are served. */
  hostAllowed(req: IncomingMessage): boolean {
    if (this.#expected) return true;
    const host = req.headers.host;
    if (!host) return false;
    try {
      return isLoopbackHost(new URL(`http://${host}`).hostname);
    } catch {
      return false;
    }
  }
}
