// The built-in http_request tool. GET and HEAD run freely; any other method needs approval.
// Requests to loopback, private, link-local and other non-public addresses are refused (unless
// configured otherwise) by the dispatcher itself, on the address actually connected to, for every
// redirect hop (guarded-agent.ts).
import type { Response } from 'undici';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../agent/tools.ts';
import type { GuardedAgentOptions } from './guarded-agent.ts';
import { bodyForModel } from './response-text.ts';

export { isInternalAddress } from './address-policy.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD']);
const MAX_BODY_CHARS = 20_000;
const MAX_REDIRECTS = 5;
/** Credentials meant for one site; like browsers, never forwarded to another origin on redirect. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

function withoutCredentials(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

export interface HttpRequestToolOptions {
  allowPrivateAddresses: boolean;
  /** Resolver and dialling seams of the address guard (tests). */
  network?: Pick<GuardedAgentOptions, 'resolve' | 'dial'>;
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

/** undici and the guarded dispatcher (≈7 MB of memory) load when the tool first runs. */
async function loadClient(options: HttpRequestToolOptions) {
  const [{ Agent, fetch }, { BlockedAddressError, createGuardedAgent }] = await Promise.all([
    import('undici'),
    import('./guarded-agent.ts'),
  ]);
  const timeouts = { headersTimeout: 20_000, bodyTimeout: 20_000 };
  const dispatcher = options.allowPrivateAddresses ? new Agent(timeouts) : createGuardedAgent({ ...options.network, ...timeouts });
  return { fetch, dispatcher, BlockedAddressError };
}

export function createHttpRequestTool(options: HttpRequestToolOptions): AnyTool {
  let client: ReturnType<typeof loadClient> | undefined;

  return defineTool({
    name: 'http_request',
    description:
      'Make an HTTP request to a public URL and return the status, main headers and body (text, truncated). GET and HEAD run directly; other methods need a person to approve.',
    parameters: Arguments,
    approval: (args) => !SAFE_METHODS.has(args.method),
    activity: { key: 'activity.fetching' },
    describe: (args) => ({ key: 'approval.describeHttp', vars: { method: args.method, url: args.url } }),
    timeoutMs: 30_000,
    async execute(args, ctx) {
      client ??= loadClient(options);
      const { fetch, dispatcher, BlockedAddressError } = await client;
      let url = new URL(args.url);
      let method: string = args.method;
      let body = args.body;
      let headers = args.headers;
      for (let hop = 0; ; hop++) {
        let response: Response;
        try {
          response = await fetch(url, {
            method,
            headers,
            body: method === 'GET' || method === 'HEAD' ? undefined : body,
            redirect: 'manual',
            signal: ctx.signal,
            dispatcher,
          });
        } catch (error) {
          const cause = (error as { cause?: unknown }).cause;
          if (cause instanceof BlockedAddressError) return { content: cause.message, isError: true };
          if (ctx.signal.aborted || !(cause instanceof Error)) throw error;
          return { content: `Request to ${url.host} failed: ${cause.message}`, isError: true };
        }
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          if (hop >= MAX_REDIRECTS) return { content: `Stopped after ${MAX_REDIRECTS} redirects (last: ${location}).`, isError: true };
          const next = URL.parse(location, url.href);
          if (!next || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
            await response.body?.cancel();
            return {
              content: `Refused to follow a redirect to ${location}: only http:// and https:// URLs can be fetched.`,
              isError: true,
            };
          }
          await response.body?.cancel();
          const becomesGet = response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST');
          if (next.origin !== url.origin) {
            // A person approved this request for one site: a redirect must not carry an unsafe method
            // (and its body) to another one, nor the caller's credentials.
            if (!SAFE_METHODS.has(method) && !becomesGet) {
              return {
                content: `Not followed: the server answered HTTP ${response.status} and redirects this ${method} request to another site (${next.href}). Ask for a new request to that URL if it should be sent there.`,
                isError: true,
              };
            }
            headers = withoutCredentials(headers);
          }
          url = next;
          if (becomesGet) {
            method = 'GET';
            body = undefined;
          }
          continue;
        }
        const type = response.headers.get('content-type') ?? '';
        const text = method === 'HEAD' ? '' : await bodyForModel(response, MAX_BODY_CHARS);
        const head = [`HTTP ${response.status} ${response.statusText}`, `URL: ${url.toString()}`];
        if (type) head.push(`Content-Type: ${type}`);
        return { content: `${head.join('\n')}\n\n${text}`, isError: response.status >= 400 };
      }
    },
  }) as AnyTool;
}
