// The application API of an app that may read its own administration info, in front of a
// FakeFeishu, without touching it: GET /open-apis/application/v6/scopes (the tenant's grants of the
// app's scopes) and GET /open-apis/application/v6/applications/:app_id (the app's information,
// with its event and callback subscriptions), answered here for a bearer token the fake issued;
// every other request passes through to the fake.
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

/** The subscriptions part of the app's information, as the API answers it (the SDK's typings, 1.74). */
export interface AppSubscriptionInfo {
  event?: { subscription_type?: string | null; request_url?: string | null; subscribed_events?: string[] | null } | null;
  callback_info?: { callback_type?: string | null; request_url?: string | null; subscribed_callbacks?: string[] | null } | null;
}

/**
 * What Feishu answers an app without application:application:self_manage (or admin:app.info:readonly):
 * HTTP 400, code 99991672 (its error code list; the same body is quoted in public issue trackers).
 */
const NO_SCOPE = {
  code: 99991672,
  msg: 'Access denied. One of the following scopes is required: [application:application:self_manage, admin:app.info:readonly].',
};

export class FeishuScopes {
  readonly #server: Server;
  readonly #target: string;
  /** Tenant tokens the fake issued (seen passing through). */
  readonly #tokens = new Set<string>();
  #port = 0;
  /** What the route answers; change it between runs. */
  scopes: ScopeGrant[];
  /** The app's information route's subscriptions; undefined: the app may not read it (99991672). */
  app: AppSubscriptionInfo | undefined;

  private constructor(target: string, scopes: ScopeGrant[], app: AppSubscriptionInfo | undefined) {
    this.#target = target;
    this.scopes = scopes;
    this.app = app;
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  /** In front of the fake at `target` (its baseUrl); use `baseUrl` as FEISHU_DOMAIN. */
  static async start(target: string, scopes: ScopeGrant[], app?: AppSubscriptionInfo): Promise<FeishuScopes> {
    const front = new FeishuScopes(target, scopes, app);
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
    const appId = /^\/open-apis\/application\/v6\/applications\/([^/]+)$/.exec(url.pathname)?.[1];
    if (req.method === 'GET' && (url.pathname === '/open-apis/application/v6/scopes' || appId)) {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const known = token !== undefined && this.#tokens.has(token);
      const [status, answer] = !known
        ? [401, { code: 99991663, msg: 'Invalid access token for authorization' }]
        : !appId
          ? [200, { code: 0, msg: 'success', data: { scopes: this.scopes } }]
          : this.app
            ? [200, { code: 0, msg: 'success', data: { app: { app_id: appId, app_name: 'Parley', ...this.app } } }]
            : [400, NO_SCOPE];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
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
