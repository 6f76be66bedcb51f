// An undici dispatcher that only connects to public addresses. The check runs inside the connector,
// on every new connection (so on every redirect hop to a new origin): an IP literal is checked as
// is; a host name is resolved once, every address it resolves to is checked, and the socket
// connects to those checked addresses only, so DNS cannot answer differently in between.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { classifyAddress, describeVerdict, type AddressVerdict } from './address-policy.ts';

interface ResolvedAddress {
  address: string;
  family: number;
}

/** Host name → every address it resolves to. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardedAgentOptions {
  /** Default: the system resolver (getaddrinfo, like any other connection). */
  resolve?: Resolver;
  /**
   * Tests only: maps an address that passed the check to the one actually dialled, so a test can
   * stand in a local server for a public address. It runs after the check and cannot widen it.
   */
  dial?: (checkedAddress: string) => string;
  headersTimeout?: number;
  bodyTimeout?: number;
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKED';
  constructor(host: string, address: string, verdict: AddressVerdict) {
    const what = host === address ? `${host} is` : `${host} resolves to ${address},`;
    super(`Refused: ${what} an internal address (${describeVerdict(verdict)}). Only public addresses can be fetched.`);
    this.name = 'BlockedAddressError';
  }
}

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

function guardedLookup(resolve: Resolver, dial: (address: string) => string): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (resolved) => {
        const wanted = options.family === 4 || options.family === 6 ? resolved.filter((a) => a.family === options.family) : resolved;
        for (const { address } of wanted) {
          const verdict = classifyAddress(address);
          if (!verdict.allowed) return callback(new BlockedAddressError(hostname, address, verdict), '', 0);
        }
        if (wanted.length === 0) {
          return callback(Object.assign(new Error(`${hostname} has no address to connect to`), { code: 'ENOTFOUND' }), '', 0);
        }
        const checked = wanted.map(({ address, family }) => ({ address: dial(address), family }));
        if (options.all) return callback(null, checked);
        callback(null, checked[0]!.address, checked[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

export function createGuardedAgent(options: GuardedAgentOptions = {}): Agent {
  const dial = options.dial ?? ((address: string) => address);
  const base = buildConnector({ lookup: guardedLookup(options.resolve ?? systemResolver, dial) });
  const connect: buildConnector.connector = (target, callback) => {
    // Node's net.connect skips the lookup for IP literals, so those are checked here.
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host)) {
      const verdict = classifyAddress(host);
      if (!verdict.allowed) return callback(new BlockedAddressError(host, host, verdict), null);
      return base({ ...target, hostname: dial(host) }, callback);
    }
    base(target, callback);
  };
  return new Agent({
    connect,
    ...(options.headersTimeout ? { headersTimeout: options.headersTimeout } : {}),
    ...(options.bodyTimeout ? { bodyTimeout: options.bodyTimeout } : {}),
  });
}
