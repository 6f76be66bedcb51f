// The admin pages and their JSON API, behind the console's access guard and the admin identity:
// anyone else gets 403 on every route (a forged cookie, another browser's cookie, no cookie), and
// every change (POST) is refused unless the browser says it comes from the console's own pages
// (Fetch Metadata and Origin), so a form or link on another site can do nothing here.
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AdminInputError, type AdminPort } from '../../../src/core/admin.ts';
import { t } from '../../../src/core/i18n/index.ts';
import type { ConsoleEnv } from '../api.ts';
import { jsonError } from '../http.ts';
import type { MarkdownRenderer } from '../markdown.ts';
import { approvalsDecide, approvalsPage, approvalsRevoke } from './approvals-pages.ts';
import { type AdminContext, htmlPage } from './context.ts';
import { conversationExport, conversationReset, conversationsList, conversationView } from './conversations-pages.ts';
import { html } from './html.ts';
import {
  knowledgeExport,
  knowledgeHistory,
  knowledgeImport,
  knowledgeList,
  knowledgePage,
  knowledgeRevert,
  knowledgeSave,
} from './knowledge-pages.ts';
import { localeOfRequest, page } from './layout.ts';
import { healthPage, usageData, usagePage } from './usage-health-pages.ts';

export interface AdminRoutesOptions {
  isAdmin(viewer: string): boolean;
  port(): AdminPort | undefined;
  markdown: MarkdownRenderer;
  /** Origins the console is reached at besides the request's own (PARLEY_WEB_PUBLIC_URL). */
  publicOrigin?: string;
}

const MAX_FORM_BYTES = 3 * 1024 * 1024;
const MAX_UPLOAD_BYTES = 30 * 1024 * 1024;

/** Every admin route, for the tests that knock on each one (method, path). */
export const ADMIN_ROUTES = [
  ['GET', '/admin'],
  ['GET', '/admin/knowledge'],
  ['GET', '/admin/knowledge/page'],
  ['POST', '/admin/knowledge/save'],
  ['GET', '/admin/knowledge/history'],
  ['POST', '/admin/knowledge/revert'],
  ['POST', '/admin/knowledge/import'],
  ['GET', '/admin/knowledge/export'],
  ['GET', '/admin/approvals'],
  ['POST', '/admin/approvals/decide'],
  ['POST', '/admin/approvals/revoke'],
  ['GET', '/admin/conversations'],
  ['GET', '/admin/conversations/view'],
  ['GET', '/admin/conversations/export'],
  ['POST', '/admin/conversations/reset'],
  ['GET', '/admin/usage'],
  ['GET', '/admin/health'],
  ['GET', '/api/admin/usage'],
  ['GET', '/api/admin/health'],
] as const;

function isApi(c: Context): boolean {
  return c.req.path.startsWith('/api/');
}

const TITLES: Record<number, string> = { 400: 'Bad request', 403: 'Not allowed', 404: 'Not found', 409: 'Conflict', 413: 'Too large' };

/** An error page (JSON under /api); `admin`: the asker is an admin (the sections are shown). */
function refuse(c: Context, status: number, message: string, admin = false): Response {
  if (isApi(c)) return jsonError(c, status, message);
  const locale = localeOfRequest(c);
  // A link to the same address: followed from this page (same site), the browser sends its cookie.
  const retry = c.req.method === 'GET' && !admin ? html`<p><a href="${c.req.path}">${c.req.path}</a></p>` : html``;
  const title = TITLES[status] ?? `Error ${status}`;
  return htmlPage(c, page({ locale, title, section: '', error: message, nav: admin }, retry), status);
}

/**
 * The request comes from the console's own pages (or from no page at all: a script with the
 * cookie). Fetch Metadata decides where the browser sends it (every current browser does); the
 * Origin header only without it: under the console's no-referrer policy a browser sends
 * `Origin: null` even for the console's own forms.
 */
function sameOrigin(c: Context, publicOrigin: string | undefined): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const origin = c.req.header('origin');
  return origin === undefined || origin === new URL(c.req.url).origin || origin === publicOrigin;
}

export function registerAdminRoutes(app: Hono<ConsoleEnv>, options: AdminRoutesOptions): void {
  const guard: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
    const locale = localeOfRequest(c);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !sameOrigin(c, options.publicOrigin)) {
      return refuse(c, 403, t(locale, 'webAdmin.crossSite'));
    }
    if (!options.isAdmin(c.get('viewer'))) return refuse(c, 403, t(locale, 'webAdmin.forbidden'));
    if (!options.port()) return refuse(c, 503, 'the admin pages are not connected to the bot (it is still starting)');
    await next();
  };
  const formLimit = bodyLimit({
    maxSize: MAX_FORM_BYTES,
    onError: (c) => refuse(c, 413, `the form is larger than ${MAX_FORM_BYTES} bytes`),
  });
  const uploadLimit = bodyLimit({
    maxSize: MAX_UPLOAD_BYTES,
    onError: (c) => refuse(c, 413, `the upload is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`),
  });
  const handle = (work: (a: AdminContext) => Promise<Response>) => async (c: Context<ConsoleEnv>) => {
    const viewer = c.get('viewer');
    const a: AdminContext = {
      c,
      port: options.port()!,
      actor: { channel: 'web', id: viewer, displayName: `web admin ${viewer.slice(0, 11)}` },
      locale: localeOfRequest(c),
      markdown: options.markdown,
    };
    try {
      return await work(a);
    } catch (error) {
      if (error instanceof AdminInputError) return refuse(c, error.status, error.message, true);
      throw error;
    }
  };

  app.use('/admin', guard);
  app.use('/admin/*', guard);
  app.use('/api/admin/*', guard);
  app.get('/admin', (c) => c.redirect('/admin/knowledge', 303));
  app.get('/admin/knowledge', handle(knowledgeList));
  app.get(
    '/admin/knowledge/page',
    handle((a) => knowledgePage(a)),
  );
  app.post('/admin/knowledge/save', formLimit, handle(knowledgeSave));
  app.get('/admin/knowledge/history', handle(knowledgeHistory));
  app.post('/admin/knowledge/revert', formLimit, handle(knowledgeRevert));
  app.post('/admin/knowledge/import', uploadLimit, handle(knowledgeImport));
  app.get('/admin/knowledge/export', handle(knowledgeExport));
  app.get(
    '/admin/approvals',
    handle((a) => approvalsPage(a)),
  );
  app.post('/admin/approvals/decide', formLimit, handle(approvalsDecide));
  app.post('/admin/approvals/revoke', formLimit, handle(approvalsRevoke));
  app.get('/admin/conversations', handle(conversationsList));
  app.get('/admin/conversations/view', handle(conversationView));
  app.get('/admin/conversations/export', handle(conversationExport));
  app.post('/admin/conversations/reset', formLimit, handle(conversationReset));
  app.get('/admin/usage', handle(usagePage));
  app.get('/admin/health', handle(healthPage));
  app.get(
    '/api/admin/usage',
    handle(async (a) => {
      const { since, by, from, rows, note } = await usageData(a);
      return a.c.json({ since, by, from: from.toISOString(), rows, ...(note ? { note } : {}) }, 200, { 'cache-control': 'no-store' });
    }),
  );
  app.get(
    '/api/admin/health',
    handle(async (a) => a.c.json(await a.port.health(), 200, { 'cache-control': 'no-store' })),
  );
  // Any other method or path under /admin: after the guard, so a non-admin learns nothing more.
  app.all('/admin/*', (c) => refuse(c, c.req.method === 'GET' ? 404 : 405, 'no such admin page (or not with this method)', true));
}
