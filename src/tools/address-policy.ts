// Which IP addresses the http_request tool may connect to: public unicast only. IPv6 addresses
// that carry an IPv4 address (mapped, translated, compatible, NAT64, 6to4, Teredo) are judged by
// the IPv4 address they carry, since that is where the packets can end up.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AddressVerdict {
  allowed: boolean;
  /** ipaddr.js range name of the address, or of the IPv4 address it carries (e.g. "loopback"). */
  range: string;
  /** The IPv4 address an IPv6 address carries, when that decided the verdict. */
  carries?: string;
}

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function ipv4(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 addresses an IPv6 address routes to, if it is one of the forms that embed them. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return [ipv4(p[6]!, p[7]!)];
    case 'rfc6052': // NAT64 64:ff9b::a.b.c.d; the local-use 64:ff9b:1::/48 has no fixed layout
      return address.match(NAT64_WELL_KNOWN) ? [ipv4(p[6]!, p[7]!)] : [];
    case '6to4': // 2002:aabb:ccdd::/48
      return [ipv4(p[1]!, p[2]!)];
    case 'teredo': // 2001:0:<server>:<flags>:<port>:<client, inverted>
      return [ipv4(p[2]!, p[3]!), ipv4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
    default:
      // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks).
      return p.slice(0, 6).every((part) => part === 0) ? [ipv4(p[6]!, p[7]!)] : [];
  }
}

const HIDDEN_RANGES = new Set(['unspecified', 'loopback']);

/** Classifies a canonical IP address string (as a URL host or DNS answer spells it). */
export function classifyAddress(address: string): AddressVerdict {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  // Only canonical notations: ipaddr.js would also accept "0x7f.1" and other legacy forms.
  if (isIP(bare) === 0) return { allowed: false, range: 'not an IP address' };
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return { allowed: range === 'unicast', range };
  }
  const ip6 = parsed as ipaddr.IPv6;
  const range = ip6.range();
  if (HIDDEN_RANGES.has(range)) return { allowed: false, range };
  const carried = embeddedIPv4(ip6);
  if (carried.length > 0) {
    for (const inner of carried) {
      const innerRange = inner.range();
      if (innerRange !== 'unicast') return { allowed: false, range: innerRange, carries: inner.toString() };
    }
    return { allowed: true, range, carries: carried[0]!.toString() };
  }
  if (range !== 'unicast') return { allowed: false, range };
  // Outside 2000::/3 nothing is assigned for global use yet.
  return ip6.match(GLOBAL_UNICAST) ? { allowed: true, range } : { allowed: false, range: 'reserved' };
}

export function isInternalAddress(address: string): boolean {
  return !classifyAddress(address).allowed;
}

const LABELS: Record<string, string> = {
  linkLocal: 'link-local',
  uniqueLocal: 'unique local',
  carrierGradeNat: 'carrier-grade NAT',
  deprecatedSiteLocal: 'site-local',
  rfc6052: 'NAT64 local use',
  'not an IP address': 'not a valid IP address',
};

/** "loopback" / "private: it carries the IPv4 address 10.0.0.1", for error messages. */
export function describeVerdict(verdict: AddressVerdict): string {
  const label = LABELS[verdict.range] ?? verdict.range;
  return verdict.carries ? `${label}: it carries the IPv4 address ${verdict.carries}` : label;
}
