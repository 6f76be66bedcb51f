// GET /open-apis/application/v6/scopes (the tenant's grants of the app's scopes) in front of a
// FakeFeishu, without touching it: a small HTTP server that answers that route itself, for a
// bearer token the fake issued, and passes every other request through to the fake.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Feishu's grant_status for a granted scope. */
export const GRANTED = 1;

export interface ScopeGrant {
  scope_name: string;
  grant_status: number;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export class FeishuScopes {
  readonly #server: Server;
  readonly #target: string;
  /** Tenant tokens the fake issued (seen passing through). */
  readonly #tokens = new Set<string>();
  #port = 0;
  /** What the route answers; change it between runs. */
  scopes: ScopeGrant[];

  private constructor(target: string, scopes: ScopeGrant[]) {
    this.#target = target;
    this.scopes = scopes;
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  /** In front of the fake at `target` (its baseUrl); use `baseUrl` as FEISHU_DOMAIN. */
  static async start(target: string, scopes: ScopeGrant[]): Promise<FeishuScopes> {
    const front = new FeishuScopes(target, scopes);
    await new Promise<void>((resolve) => front.#server.listen(0, '127.0.0.1', resolve));
    front.#port = (front.#server.address() as AddressInfo).port;
    return front;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await bodyOf(req);
    const url = new URL(req.url ?? '/', this.baseUrl);
    if (req.method === 'GET' && url.pathname === '/open-apis/application/v6/scopes') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const known = token !== undefined && this.#tokens.has(token);
      const answer = known
        ? { code: 0, msg: 'success', data: { scopes: this.scopes } }
        : { code: 99991663, msg: 'Invalid access token for authorization' };
      res.writeHead(known ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host'),
    );
    const answer = await fetch(new URL(url.pathname + url.search, this.#target), {
      method: req.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const text = await answer.text();
    const issued = /"tenant_access_token":"([^"]+)"/.exec(text)?.[1];
    if (issued) this.#tokens.add(issued);
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(text);
  }
}
