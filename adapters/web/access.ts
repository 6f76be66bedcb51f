// Who may use the console at all. With PARLEY_WEB_TOKEN set, every request carries the token as
// `Authorization: Bearer <token>` or in the cookie the page sets after it was opened once with
// `?token=<token>`. Without a token (loopback only) the Host header must name this machine, so a
// web page elsewhere cannot reach the console through DNS rebinding.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isLoopbackHost } from './config.ts';

export const TOKEN_COOKIE = 'parley_web_token';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
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

  /** The request carries the token in its Authorization header or its cookie. */
  allows(authorization: string | undefined, cookieToken: string | undefined): boolean {
    if (!this.#expected) return true;
    const bearer = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
    return this.matches(bearer) || this.matches(cookieToken);
  }

  /** Without a token, only requests addressed to a loopback host name are served. */
  hostAllowed(host: string | undefined): boolean {
    if (this.#expected) return true;
    if (!host) return false;
    try {
      return isLoopbackHost(new URL(`http://${host}`).hostname);
    } catch {
      return false;
    }
  }
}
