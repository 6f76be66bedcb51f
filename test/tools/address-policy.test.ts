// The address classifier on its own: embedded IPv4 decides for IPv6 forms that carry one, and
// public addresses stay reachable in every notation (the guard refuses what it must, not all).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress, describeVerdict, isInternalAddress } from '../../src/tools/address-policy.ts';
import { dotted, internalHost, publicV4, v4Notation, v6Carrying } from './notations.ts';

const hostOf = (host: string) => new URL(`http://${host}/`).hostname;

describe('address classification', () => {
  it('classifies by range, and IPv6 forms by the IPv4 address they carry', () => {
    const cases: [string, string, string?][] = [
      ['127.0.0.1', 'loopback'],
      ['0.0.0.0', 'unspecified'],
      ['10.1.2.3', 'private'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['198.18.0.1', 'reserved'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fe80::1', 'linkLocal'],
      ['fd00::1', 'uniqueLocal'],
      ['ff02::1', 'multicast'],
      ['2001:2::1', 'benchmarking'],
      ['4000::1', 'reserved'],
      ['::ffff:7f00:1', 'loopback', '127.0.0.1'],
      ['::7f00:1', 'loopback', '127.0.0.1'],
      ['::ffff:0:a00:1', 'private', '10.0.0.1'],
      ['64:ff9b::a9fe:a9fe', 'linkLocal', '169.254.169.254'],
      ['2002:c0a8:101::', 'private', '192.168.1.1'],
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', '127.0.0.1'],
      ['2001:0:a00:1::', 'private', '10.0.0.1'],
      ['localhost', 'not an IP address'],
      ['0x7f.1', 'not an IP address'],
    ];
    for (const [address, range, carries] of cases) {
      expect(classifyAddress(address), address).toEqual({ allowed: false, range, ...(carries ? { carries } : {}) });
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:808:808', '64:ff9b::808:808', '2002:808:808::1']) {
      expect(isInternalAddress(address), address).toBe(false);
    }
    expect(describeVerdict(classifyAddress('2002:c0a8:101::'))).toBe('private: it carries the IPv4 address 192.168.1.1');
  });

  it('property: the generated notations mean what they say to a URL parser', () => {
    fc.assert(
      fc.property(
        publicV4.chain((n) => fc.tuple(fc.constant(n), v4Notation(n))),
        ([n, host]) => {
          expect(hostOf(host)).toBe(dotted(n));
        },
      ),
      { seed: 42, numRuns: 1000 },
    );
  });

  it('property: internal addresses are refused in every notation', () => {
    fc.assert(
      fc.property(internalHost, (host) => {
        expect(classifyAddress(hostOf(host)).allowed, host).toBe(false);
      }),
      { seed: 42, numRuns: 3000 },
    );
  });

  it('property: public IPv4 addresses stay allowed in every notation and when mapped or NAT64-translated', () => {
    const mappedOrNat64 = (n: number) =>
      fc.constantFrom(
        `[::ffff:${dotted(n)}]`,
        `[64:ff9b::${dotted(n)}]`,
        `[2002:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}::1]`,
      );
    fc.assert(
      fc.property(
        publicV4.chain((n) => fc.oneof(v4Notation(n), mappedOrNat64(n))),
        (host) => {
          expect(classifyAddress(hostOf(host)).allowed, host).toBe(true);
        },
      ),
      { seed: 42, numRuns: 2000 },
    );
    // Every carrying form of a public address is judged by that address.
    fc.assert(
      fc.property(
        publicV4.chain((n) => v6Carrying(n).map((h) => [n, h] as const)),
        ([n, host]) => {
          const verdict = classifyAddress(host);
          if (!verdict.allowed) expect(verdict.carries, host).not.toBe(dotted(n));
        },
      ),
      { seed: 42, numRuns: 2000 },
    );
  });
});
