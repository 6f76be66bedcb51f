// fast-check arbitraries for IP address literals as they can appear in a URL host: IPv4 in every
// notation the WHATWG URL parser accepts (decimal, hex, octal, short forms, percent-encoding,
// full-width digits), and IPv6 forms that carry an IPv4 address (mapped, translated, compatible,
// NAT64, 6to4, Teredo) or are internal by themselves.
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';

const INTERNAL_V4: [string, number][] = [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
  ['100.64.0.0', 10],
  ['0.0.0.0', 8],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  ['192.0.0.0', 24],
];

const INTERNAL_V6: [string, number][] = [
  ['::1', 128],
  ['::', 128],
  ['fe80::', 10],
  ['fc00::', 7],
  ['ff00::', 8],
  ['fec0::', 10],
  ['2001:db8::', 32],
  ['2001:2::', 48],
  ['100::', 64],
  ['64:ff9b:1::', 48],
];

function toInt(dotted: string): number {
  return dotted.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

export function dotted(n: number): string {
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
}

function inRange([network, prefix]: [string, number]): fc.Arbitrary<number> {
  const size = 2 ** (32 - prefix);
  return fc.integer({ min: 0, max: size - 1 }).map((host) => toInt(network) + host);
}

/** An IPv4 address (as an unsigned integer) in a loopback/private/otherwise internal range. */
const internalV4 = fc.oneof(...INTERNAL_V4.map(inRange), fc.constant(0xffffffff));

/** A public unicast IPv4 address. */
export const publicV4 = fc.integer({ min: 0, max: 0xffffffff }).filter((n) => ipaddr.parse(dotted(n)).range() === 'unicast');

const radix = fc.constantFrom('dec', 'hex', 'HEX', 'oct');
function number(value: number, how: string): string {
  if (how === 'hex') return `0x${value.toString(16)}`;
  if (how === 'HEX') return `0X${value.toString(16).toUpperCase()}`;
  if (how === 'oct') return `0${value.toString(8)}`;
  return String(value);
}

/** IPv4 host notations (without brackets), all meaning the same address to a URL parser. */
export function v4Notation(n: number): fc.Arbitrary<string> {
  const octets = [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff] as const;
  const plain = fc.oneof(
    fc.constant(dotted(n)),
    radix.map((r) => number(n, r)),
    fc.tuple(radix, radix, radix, radix).map((rs) => octets.map((o, i) => number(o, rs[i]!)).join('.')),
    fc.tuple(radix, radix).map(([a, b]) => `${number(octets[0], a)}.${number(n & 0xffffff, b)}`),
    fc.tuple(radix, radix, radix).map(([a, b, c]) => `${number(octets[0], a)}.${number(octets[1], b)}.${number(n & 0xffff, c)}`),
    fc.constant(`${dotted(n)}.`),
  );
  return fc.tuple(plain, fc.constantFrom('none', 'percent', 'fullwidth'), fc.nat()).map(([host, disguise, at]) => {
    if (disguise === 'none') return host;
    const digits = [...host].map((ch, i) => (/[0-9]/.test(ch) ? i : -1)).filter((i) => i >= 0);
    const i = digits[at % digits.length]!;
    const ch = host[i]!;
    const replaced = disguise === 'percent' ? `%${ch.charCodeAt(0).toString(16)}` : String.fromCharCode(0xff10 + Number(ch));
    return host.slice(0, i) + replaced + host.slice(i + 1);
  });
}

const hex16 = fc.integer({ min: 0, max: 0xffff });
function group(value: number, pad: boolean, upper: boolean): string {
  const text = value.toString(16).padStart(pad ? 4 : 1, '0');
  return upper ? text.toUpperCase() : text;
}

/** IPv6 forms that carry the IPv4 address `n` (without brackets). */
export function v6Carrying(n: number): fc.Arbitrary<string> {
  const hi = n >>> 16;
  const lo = n & 0xffff;
  return fc.tuple(fc.boolean(), fc.boolean(), hex16, hex16, hex16).chain(([pad, upper, r1, r2, r3]) => {
    const g = (v: number) => group(v, pad, upper);
    return fc.constantFrom(
      `::ffff:${dotted(n)}`,
      `::${g(0xffff)}:${g(hi)}:${g(lo)}`,
      `0:0:0:0:0:${g(0xffff)}:${dotted(n)}`,
      `::ffff:0:${g(hi)}:${g(lo)}`,
      `::${dotted(n)}`,
      `::${g(hi)}:${g(lo)}`,
      `64:ff9b::${dotted(n)}`,
      `${g(0x64)}:${g(0xff9b)}::${g(hi)}:${g(lo)}`,
      `2002:${g(hi)}:${g(lo)}:${g(r1)}::${g(r2)}`,
      `2001:0:${g(r1)}:${g(r2)}:${g(r3)}:${g(r1)}:${g(~hi & 0xffff)}:${g(~lo & 0xffff)}`,
      `2001:0:${g(hi)}:${g(lo)}:${g(r1)}:${g(r2)}:${g(r3)}:${g(r1)}`,
    );
  });
}

/** An IPv6 address internal by itself (loopback, link-local, unique local, multicast...). */
const internalV6 = fc.oneof(
  ...INTERNAL_V6.map(([network, prefix]) =>
    fc.array(hex16, { minLength: 8, maxLength: 8 }).map((random) => {
      const base = ipaddr.IPv6.parse(network).parts;
      const parts = base.map((part, i) => {
        const keep = Math.max(0, Math.min(16, prefix - i * 16));
        const mask = keep === 0 ? 0 : (0xffff << (16 - keep)) & 0xffff;
        return (part & mask) | (random[i]! & ~mask & 0xffff);
      });
      return new ipaddr.IPv6(parts).toString();
    }),
  ),
);

/** A URL host (brackets included) for an internal address, in any notation. */
export const internalHost: fc.Arbitrary<string> = fc.oneof(
  internalV4.chain(v4Notation),
  internalV4.chain(v6Carrying).map((h) => `[${h}]`),
  internalV6.map((h) => `[${h}]`),
);
