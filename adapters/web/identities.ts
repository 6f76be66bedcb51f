// Who a browser is, decided by the server alone: an id it mints on the first visit and keeps in
// an HMAC-signed, HttpOnly, SameSite=Strict cookie. Ids in request bodies or queries mean nothing.
// The operator identity (an admin) is derived from the secret; a browser becomes it only through
// the one-time admin login code printed at start.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getSignedCookie, setSignedCookie } from 'hono/cookie';

const IDENTITY_COOKIE = 'parley_web_id';
const ID_PATTERN = /^(u|op)-[A-Za-z0-9_-]{22}$/;
// Browsers cap cookie lifetimes at 400 days.
const MAX_AGE_SECONDS = 400 * 24 * 60 * 60;

function derive(secret: Buffer, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`parley-web/${purpose}`).digest();
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export class Identities {
  /** The operator's id: an admin, unguessable without the secret, the same after a restart. */
  readonly operatorId: string;
  readonly #cookieKey: Buffer;
  #loginCode: Buffer | undefined;

  constructor(secret: Buffer) {
    this.#cookieKey = derive(secret, 'identity-cookie');
    this.operatorId = `op-${derive(secret, 'operator').toString('base64url').slice(0, 22)}`;
  }

  /** The browser's id from its signed cookie; a new id (and cookie) when it has none or a forged one. */
  async identify(c: Context): Promise<string> {
    const signed = await getSignedCookie(c, this.#cookieKey, IDENTITY_COOKIE);
    if (typeof signed === 'string' && ID_PATTERN.test(signed)) return signed;
    const id = `u-${randomBytes(16).toString('base64url')}`;
    await this.become(c, id);
    return id;
  }

  /** Sets the browser's identity cookie on the response. */
  async become(c: Context, id: string): Promise<void> {
    await setSignedCookie(c, IDENTITY_COOKIE, id, this.#cookieKey, {
      path: '/',
      httpOnly: true,
      sameSite: 'Strict',
      maxAge: MAX_AGE_SECONDS,
    });
  }

  /** A fresh single-use admin login code (the previous one stops working). */
  newLoginCode(): string {
    const code = randomBytes(24).toString('base64url');
    this.#loginCode = digest(code);
    return code;
  }

  /** True once for the current code; compared in constant time. */
  redeem(code: string): boolean {
    const expected = this.#loginCode;
    if (!expected || !timingSafeEqual(digest(code), expected)) return false;
    this.#loginCode = undefined;
    return true;
  }
}
