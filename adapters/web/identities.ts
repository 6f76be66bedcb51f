// Who a browser is, decided by the server alone: an id it mints on the first visit and keeps in
// an HMAC-signed, HttpOnly, SameSite=Strict cookie (Secure when the console is served over HTTPS).
// Ids in request bodies or queries mean nothing. The operator identity (an admin) is derived from
// the secret; a browser becomes it only through a one-time admin login code (printed at start, or
// by `parley web reset-admins`), and stays it only until the admins are reset (admin-epoch.ts).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getSignedCookie, setSignedCookie } from 'hono/cookie';
import type { AdminEpoch, AdminEpochFile } from './admin-epoch.ts';

const IDENTITY_COOKIE = 'parley_web_id';
const USER_ID = /^u-[A-Za-z0-9_-]{22}$/;
/** The operator's id, with the tag of the admin epoch the cookie was issued in (none before any reset). */
const OPERATOR_COOKIE = /^(op-[A-Za-z0-9_-]{22})(?:~([A-Za-z0-9_-]{22}))?$/;
// Browsers cap cookie lifetimes at 400 days.
const MAX_AGE_SECONDS = 400 * 24 * 60 * 60;

/** The browser says the request comes from another site (Fetch Metadata; sent by every current browser). */
export function isCrossSite(c: Context): boolean {
  return c.req.header('sec-fetch-site') === 'cross-site';
}

function derive(secret: Buffer, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`parley-web/${purpose}`).digest();
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export interface IdentitiesOptions {
  secret: Buffer;
  admins: AdminEpochFile;
  /** Set the cookies' Secure attribute (the console is reached over HTTPS). */
  secureCookies: boolean;
  /** Called when the admins were reset since the last look (their open event streams should end). */
  onAdminsReset?: () => void;
}

export class Identities {
  /** The operator's id: an admin, unguessable without the secret, the same after a restart. */
  readonly operatorId: string;
  readonly #secret: Buffer;
  readonly #cookieKey: Buffer;
  readonly #o: IdentitiesOptions;
  #loginCode: { digest: Buffer; epoch: string } | undefined;
  #seenEpoch: string;

  constructor(options: IdentitiesOptions) {
    this.#o = options;
    this.#secret = options.secret;
    this.#cookieKey = derive(options.secret, 'identity-cookie');
    this.operatorId = `op-${derive(options.secret, 'operator').toString('base64url').slice(0, 22)}`;
    this.#seenEpoch = options.admins.read().epoch;
  }

  /**
   * The browser's id from its signed cookie; a new id (and cookie) when it has none, a forged one, or
   * a signed-out admin's. A cross-site request (a link or form on another site) never carries the
   * SameSite=Strict cookie even when the browser has one, so it gets a passing id and no cookie:
   * minting one there would replace the browser's own identity (an admin's included).
   */
  async identify(c: Context): Promise<string> {
    const signed = await getSignedCookie(c, this.#cookieKey, IDENTITY_COOKIE);
    if (typeof signed === 'string') {
      if (USER_ID.test(signed)) return signed;
      const operator = OPERATOR_COOKIE.exec(signed);
      if (operator?.[1] === this.operatorId && (operator[2] ?? '') === this.#tag(this.checkAdmins().epoch)) return this.operatorId;
    }
    const id = `u-${randomBytes(16).toString('base64url')}`;
    if (!isCrossSite(c)) await this.become(c, id);
    return id;
  }

  /** Sets the browser's identity cookie on the response. */
  async become(c: Context, id: string): Promise<void> {
    const tag = id === this.operatorId ? this.#tag(this.checkAdmins().epoch) : '';
    await setSignedCookie(c, IDENTITY_COOKIE, tag ? `${id}~${tag}` : id, this.#cookieKey, {
      path: '/',
      httpOnly: true,
      sameSite: 'Strict',
      secure: this.#o.secureCookies,
      maxAge: MAX_AGE_SECONDS,
    });
  }

  /** A fresh single-use admin login code (the previous one stops working; so does this one when the admins are reset). */
  newLoginCode(): string {
    const code = randomBytes(24).toString('base64url');
    this.#loginCode = { digest: digest(code), epoch: this.checkAdmins().epoch };
    return code;
  }

  /** True once for the current code (this process's, or the one `reset-admins` printed); compared in constant time. */
  redeem(code: string): boolean {
    const offered = digest(code);
    const current = this.checkAdmins();
    const own = this.#loginCode;
    if (own && own.epoch === current.epoch && timingSafeEqual(offered, own.digest)) {
      this.#loginCode = undefined;
      return true;
    }
    if (current.loginCodeDigest && timingSafeEqual(offered, current.loginCodeDigest)) {
      this.#o.admins.forgetLoginCode(current.epoch);
      return true;
    }
    return false;
  }

  /** The admin epoch now; tells onAdminsReset when it changed since the last look. */
  checkAdmins(): AdminEpoch {
    const current = this.#o.admins.read();
    if (current.epoch !== this.#seenEpoch) {
      this.#seenEpoch = current.epoch;
      this.#o.onAdminsReset?.();
    }
    return current;
  }

  #tag(epoch: string): string {
    return epoch ? derive(this.#secret, `admin-epoch/${epoch}`).toString('base64url').slice(0, 22) : '';
  }
}
