// `Authorization: Bearer <token>` checked in constant time (digests are compared, so the token's
// length does not leak either).
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function bearerMatches(authorization: string | undefined, token: string | undefined): boolean {
  const offered = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
  if (token === undefined || offered === undefined) return false;
  return timingSafeEqual(digest(offered), digest(token));
}
