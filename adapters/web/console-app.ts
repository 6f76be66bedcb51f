// The console as a Hono app, mounted at '/' on the process's HTTP host: the page, its assets, the
// one-time admin login and the API, behind the access guard. Every failure becomes a 4xx/5xx
// answer (JSON for the API); nothing a client sends can crash it.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';
import type { CoreLogger } from '../../src/core/types.ts';
import { TOKEN_COOKIE, type AccessGuard } from './access.ts';
import { registerApi, type ConsoleBackend, type ConsoleEnv } from './api.ts';
import type { Asset } from './assets.ts';
import { errorHandler, HttpError, jsonError } from './http.ts';
import { registerAdminRoutes, type AdminRoutesOptions } from './admin/routes.ts';
import { type Identities, isCrossSite } from './identities.ts';
import { registerUploadApi } from './upload-api.ts';

export interface ConsoleAppOptions {
  guard: AccessGuard;
  /** Set the cookies' Secure attribute (the console is reached over HTTPS). */
  secureCookies: boolean;
  identities: Identities;
  backend: ConsoleBackend;
  assets: Map<string, Asset>;
  log: CoreLogger;
  admin: AdminRoutesOptions;
}

const NO_STORE = { 'cache-control': 'no-store' };

const headers = secureHeaders({
  // No inline script or style, nothing from elsewhere: even if escaping failed, injected markup could not run.
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: 'DENY',
  referrerPolicy: 'no-referrer',
  // Plain HTTP on this machine (or behind the operator's proxy): HSTS is not ours to set.
  strictTransportSecurity: false,
});

function sendAsset(c: Context, asset: Asset): Response {
  return c.body(new Uint8Array(asset.body), 200, { 'content-type': asset.type, 'cache-control': 'no-cache' });
}

export function createConsoleApp(options: ConsoleAppOptions): Hono<ConsoleEnv> {
  const { guard, identities, backend, assets } = options;
  const app = new Hono<ConsoleEnv>();
  app.use('*', headers);
  app.use('*', async (c, next) => {
    if (!guard.hostAllowed(c.req.header('host'))) throw new HttpError(403, 'this console answers only to localhost or 127.0.0.1');
    await next();
  });

  /** Pages: trade `?token=` for a cookie (and drop it from the address), then know the browser. */
  const pageAccess: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
    const offered = c.req.query('token');
    if (guard.required && offered !== undefined) {
      if (!guard.matches(offered)) return c.text('Parley web console: wrong access token.\n', 401, NO_STORE);
      const url = new URL(c.req.url);
      url.searchParams.delete('token');
      setCookie(c, TOKEN_COOKIE, offered, { path: '/', httpOnly: true, sameSite: 'Strict', secure: options.secureCookies });
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    if (!guard.allows(c.req.header('authorization'), getCookie(c, TOKEN_COOKIE))) {
      const hint = 'Open this page once with ?token=<PARLEY_WEB_TOKEN> added to its address.';
      return c.text(`Parley web console: access token required. ${hint}\n`, 401, NO_STORE);
    }
    c.set('viewer', await identities.identify(c));
    await next();
  };

  const page = assets.get('index.html')!;
  for (const path of ['/', '/index.html']) {
    app.get(path, pageAccess, (c) => sendAsset(c, page));
    app.all(path, (c) => jsonError(c, 405, 'method not allowed here (use GET)', { allow: 'GET, HEAD' }));
  }

  app.get('/admin-login', pageAccess, async (c) => {
    if (!identities.redeem(c.req.query('code') ?? '')) {
      return c.text(
        'Parley web console: this admin login link is wrong or was already used. Get a new one with: parley web admin-link\n',
        403,
        NO_STORE,
      );
    }
    await identities.become(c, identities.operatorId);
    c.header('cache-control', 'no-store');
    return c.redirect('/', 303);
  });

  app.get('/assets/:name', (c) => {
    const name = c.req.param('name');
    const asset = name === 'index.html' ? undefined : assets.get(name);
    return asset ? sendAsset(c, asset) : jsonError(c, 404, 'not found');
  });

  app.use('/admin', pageAccess);
  app.use('/admin/*', pageAccess);

  app.use('/api/*', async (c, next) => {
    // The API serves the console's own pages; another site has no business here (its requests
    // would carry no identity cookie anyway).
    if (isCrossSite(c)) throw new HttpError(403, 'cross-site requests are refused');
    if (!guard.allows(c.req.header('authorization'), getCookie(c, TOKEN_COOKIE))) {
      throw new HttpError(401, 'access token required (Authorization: Bearer <token>, or the page cookie)');
    }
    c.set('viewer', await identities.identify(c));
    await next();
  });
  registerAdminRoutes(app, options.admin);
  registerApi(app, backend);
  if (backend.uploads) registerUploadApi(app, backend.uploads);

  app.notFound((c) => jsonError(c, 404, 'not found'));
  app.onError(errorHandler(options.log));
  return app;
}
