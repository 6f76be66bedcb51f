// The built-in http_request tool. GET and HEAD run freely; any other method needs approval.
// Requests to loopback, private, link-local and other internal addresses are refused (unless
// configured otherwise), checked on the address actually connected to, so DNS tricks and
// redirects cannot reach the inside.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch } from 'undici';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../agent/tools.ts';

const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class BlockedAddressError extends Error {
  constructor(host: string, address: string) {
    super(`Refused: ${host} resolves to ${address}, an internal address (loopback, private or link-local).`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A DNS lookup that fails for internal addresses; used for the connection itself. */
function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((a) => isInternalAddress(a.address));
    if (bad) return callback(Object.assign(new BlockedAddressError(hostname, bad.address), { code: 'EBLOCKED' }), []);
    const all = (options as { all?: boolean }).all;
    if (all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);
const MAX_BODY_CHARS = 20_000;
const MAX_REDIRECTS = 5;

export interface HttpRequestToolOptions {
  allowPrivateAddresses: boolean;
}

const Arguments = z.object({
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  method: z
    .string()
    .trim()
    .toUpperCase()
    .pipe(z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']))
    .default('GET'),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().max(100_000).optional(),
});

export function createHttpRequestTool(options: HttpRequestToolOptions): AnyTool {
  const dispatcher = new Agent({
    connect: options.allowPrivateAddresses ? {} : { lookup: guardedLookup },
    headersTimeout: 20_000,
    bodyTimeout: 20_000,
  });

  return defineTool({
    name: 'http_request',
    description:
      'Make an HTTP request to a public URL and return the status, main headers and body (text, truncated). GET and HEAD run directly; other methods need a person to approve.',
    parameters: Arguments,
    approval: (args) => !SAFE_METHODS.has(args.method),
    activity: 'fetching a web page',
    describe: (args) => `send an HTTP ${args.method} request to ${args.url}`,
    timeoutMs: 30_000,
    async execute(args, ctx) {
      let url = new URL(args.url);
      let method: string = args.method;
      let body = args.body;
      for (let hop = 0; ; hop++) {
        if (!options.allowPrivateAddresses && isIP(url.hostname.replace(/^\[|\]$/g, '')) && isInternalAddress(url.hostname.replace(/^\[|\]$/g, ''))) {
          return { content: `Refused: ${url.hostname} is an internal address (loopback, private or link-local).`, isError: true };
        }
        let response;
        try {
          response = await fetch(url, { method, headers: args.headers, body: method === 'GET' || method === 'HEAD' ? undefined : body, redirect: 'manual', signal: ctx.signal, dispatcher });
        } catch (error) {
          const cause = (error as { cause?: unknown }).cause;
          if (cause instanceof BlockedAddressError) return { content: cause.message, isError: true };
          throw error;
        }
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          if (hop >= MAX_REDIRECTS) return { content: `Stopped after ${MAX_REDIRECTS} redirects (last: ${location}).`, isError: true };
          url = new URL(location, url);
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
          }
          await response.body?.cancel();
          continue;
        }
        const type = response.headers.get('content-type') ?? '';
        let text = method === 'HEAD' ? '' : await response.text();
        if (text.length > MAX_BODY_CHARS) text = `${text.slice(0, MAX_BODY_CHARS)}\n[body truncated: ${text.length} characters in all]`;
        const head = [`HTTP ${response.status} ${response.statusText}`, `URL: ${url.toString()}`];
        if (type) head.push(`Content-Type: ${type}`);
        return { content: `${head.join('\n')}\n\n${text}`, isError: response.status >= 400 };
      }
    },
  }) as AnyTool;
}
