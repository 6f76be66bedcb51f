// The admin pages' shell: head (the shared theme.css, admin.css and one module script, all from /assets: the CSP
// allows nothing inline), the header with the five sections, and small formatting helpers.
import type { Context } from 'hono';
import { DEFAULT_LOCALE, type Locale, localeOf, t, type TextKey } from '../../../src/core/i18n/index.ts';
import { type Html, html } from './html.ts';

const SECTIONS = [
  { path: '/admin/knowledge', key: 'webAdmin.nav.knowledge' },
  { path: '/admin/approvals', key: 'webAdmin.nav.approvals' },
  { path: '/admin/conversations', key: 'webAdmin.nav.conversations' },
  { path: '/admin/usage', key: 'webAdmin.nav.usage' },
  { path: '/admin/health', key: 'webAdmin.nav.health' },
] as const satisfies readonly { path: string; key: TextKey }[];

/** The browser's first language we have texts in (Accept-Language), else English. */
export function localeOfRequest(c: Context): Locale {
  const header = c.req.header('accept-language') ?? '';
  for (const part of header.split(',')) {
    const locale = localeOf(part.split(';')[0]);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}

/** The navigation an admin sees (the chat page shows it too). */
export function adminNav(locale: Locale): { href: string; label: string }[] {
  return SECTIONS.map((s) => ({ href: s.path, label: t(locale, s.key) }));
}

export interface PageOptions {
  locale: Locale;
  title: string;
  /** The section path this page belongs to (marked in the navigation). */
  section: string;
  notice?: string;
  error?: string;
  /** Show the sections (false on a refusal: a non-admin sees none of them). */
  nav?: boolean;
}

export function page(options: PageOptions, body: Html): string {
  const { locale } = options;
  return html`<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Parley admin</title>
<link rel="stylesheet" href="/assets/theme.css">
<link rel="stylesheet" href="/assets/admin.css">
<script type="module" src="/assets/admin.js"></script>
</head>
<body class="admin">
<header class="top">
<a class="brand" href="/">Parley</a>
${
  options.nav === false
    ? ''
    : html`<nav class="sections" aria-label="${t(locale, 'webAdmin.nav.label')}">
${SECTIONS.map((s) => html`<a href="${s.path}"${s.path === options.section ? html` aria-current="page"` : ''}>${t(locale, s.key)}</a>`)}
</nav>`
}
</header>
<main>
<h1>${options.title}</h1>
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''}
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
${body}
</main>
</body>
</html>
`.value;
}

export function when(date: Date): string {
  return date.toISOString().replace('T', ' ').slice(0, 16);
}

export const grouped = (n: number) => n.toLocaleString('en-US');

/** A table that scrolls sideways on a narrow screen instead of widening the page. */
export function table(
  head: readonly string[],
  rows: readonly (readonly (Html | string | number)[])[],
  empty: string,
  className = '',
): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  // data-label: on a narrow screen each row becomes a card and every cell says what it is.
  return html`<div class="scroll"><table class="${className}"><thead><tr>${head.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows.map(
    (row) => html`<tr>${row.map((cell, i) => html`<td data-label="${head[i] ?? ''}">${cell}</td>`)}</tr>`,
  )}</tbody></table></div>`;
}
