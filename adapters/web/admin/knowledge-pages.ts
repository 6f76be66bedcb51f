// Knowledge: the page list and search (scores, "into the prompt"), a page rendered with its editor
// (the page file: front matter and body, validated like `parley knowledge edit`), revisions with a
// diff and revert, import (a folder or a zip of Markdown, with the importer's report and a dry
// run) and export (a zip of the files `parley knowledge export` writes).
import { strToU8, unzipSync, zipSync } from 'fflate';
import { z } from 'zod';
import { AdminInputError, type AdminImportFile, type AdminImportReport } from '../../../src/core/admin.ts';
import { t } from '../../../src/core/i18n/index.ts';
import { type AdminContext, download, formOf, htmlPage, queryOf, RevisionSchema, SlugSchema } from './context.ts';
import { lineDiff } from './diff.ts';
import { type Html, html, trusted } from './html.ts';
import { page, table, when } from './layout.ts';

const SECTION = '/admin/knowledge';
const PAGE_SIZE = 50;
/** What an upload may unpack to (a zip's files together). */
const MAX_UNPACKED_BYTES = 50 * 1024 * 1024;
const MAX_FILE_BYTES = 5 * 1024 * 1024;

const pageHref = (slug: string) => `/admin/knowledge/page?slug=${encodeURIComponent(slug)}`;
const historyHref = (slug: string, revision?: number) =>
  `/admin/knowledge/history?slug=${encodeURIComponent(slug)}${revision ? `&revision=${revision}` : ''}`;

function title(a: AdminContext): string {
  return t(a.locale, 'webAdmin.nav.knowledge');
}

const ListQuery = z.object({
  q: z.string().max(500).optional(),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

function searchForm(a: AdminContext, query: string): Html {
  return html`<form class="search" method="get" action="${SECTION}" role="search">
<input type="search" name="q" value="${query}" placeholder="${t(a.locale, 'webAdmin.knowledge.searchPlaceholder')}" aria-label="${t(a.locale, 'webAdmin.knowledge.search')}">
<button type="submit" class="primary">${t(a.locale, 'webAdmin.knowledge.search')}</button>
</form>`;
}

function importForm(a: AdminContext): Html {
  return html`<details class="panel"><summary>${t(a.locale, 'webAdmin.knowledge.import')} · ${t(a.locale, 'webAdmin.knowledge.export')}</summary>
<form method="post" action="/admin/knowledge/import" enctype="multipart/form-data" class="stack">
<label>${t(a.locale, 'webAdmin.knowledge.importFolder')} <input type="file" name="files" multiple webkitdirectory></label>
<label>${t(a.locale, 'webAdmin.knowledge.importZip')} <input type="file" name="zip" accept=".zip,application/zip"></label>
<label class="check"><input type="checkbox" name="dryRun" value="1" checked> ${t(a.locale, 'webAdmin.knowledge.dryRun')}</label>
<button type="submit">${t(a.locale, 'webAdmin.knowledge.import')}</button>
</form>
<p><a class="button" href="/admin/knowledge/export" download>${t(a.locale, 'webAdmin.knowledge.export')}</a></p>
</details>`;
}

export async function knowledgeList(a: AdminContext): Promise<Response> {
  const { q, offset } = queryOf(a.c, ListQuery);
  const query = q?.trim() ?? '';
  let body: Html;
  if (query) {
    const result = await a.port.knowledge.search(query, 20);
    const rows = result.hits.map((hit) => [
      html`<a href="${pageHref(hit.slug)}">${hit.title}</a><br><span class="muted">${hit.slug} · ${hit.section}</span>`,
      html`<span class="snippet">${hit.snippet}</span>`,
      hit.score.toFixed(2),
      hit.match.toFixed(2),
      hit.prompt ? html`<span class="tag yes">${t(a.locale, 'webAdmin.knowledge.prompt')}</span>` : '',
    ]);
    body = html`${searchForm(a, query)}
<p class="muted">terms: ${result.terms.join(', ') || '—'}</p>
${table(['page', 'snippet', 'score', 'match', 'prompt'], rows, `No page matches “${query}”.`, 'hits')}
<p class="muted small">${result.legend}</p>`;
  } else {
    const { pages, total } = await a.port.knowledge.list({ limit: PAGE_SIZE, offset });
    const rows = pages.map((p) => [
      html`<a href="${pageHref(p.slug)}">${p.title}</a><br><span class="muted">${p.slug}</span>`,
      p.tags.join(', '),
      p.revision,
      when(p.updatedAt),
    ]);
    const more = offset + pages.length < total ? html`<a href="${SECTION}?offset=${offset + PAGE_SIZE}">next →</a>` : '';
    const back = offset > 0 ? html`<a href="${SECTION}?offset=${Math.max(0, offset - PAGE_SIZE)}">← previous</a>` : '';
    body = html`${searchForm(a, '')}
<p class="muted">${t(a.locale, 'webAdmin.knowledge.pages', { count: total })}</p>
${table(['page', 'tags', 'revision', 'updated'], rows, 'No pages yet: import a folder of Markdown files below, or use parley knowledge add.')}
<p class="pager">${back} ${more}</p>`;
  }
  return htmlPage(a.c, page({ locale: a.locale, title: title(a), section: SECTION }, html`${body}${importForm(a)}`));
}

const PageQuery = z.object({ slug: SlugSchema, saved: RevisionSchema.optional() });

function editor(a: AdminContext, slug: string, revision: number, file: string): Html {
  return html`<form method="post" action="/admin/knowledge/save" class="stack editor">
<input type="hidden" name="slug" value="${slug}">
<input type="hidden" name="revision" value="${revision}">
<label for="page-file">${t(a.locale, 'webAdmin.knowledge.edit')} (front matter + Markdown)</label>
<textarea id="page-file" name="file" rows="18" spellcheck="false">${file}</textarea>
<button type="submit" class="primary">${t(a.locale, 'webAdmin.knowledge.save')}</button>
</form>`;
}

export async function knowledgePage(
  a: AdminContext,
  problem?: { slug: string; error: string; file: string; status: number },
): Promise<Response> {
  const { slug, saved } = problem ? { slug: problem.slug, saved: undefined } : queryOf(a.c, PageQuery);
  const found = await a.port.knowledge.get(slug);
  if (!found) throw new AdminInputError(`no knowledge page with slug ${slug}`, 404);
  const notice = saved !== undefined ? t(a.locale, 'webAdmin.knowledge.saved', { slug, status: 'saved', revision: saved }) : undefined;
  const body = html`<p class="muted">${found.slug} · revision ${found.revision} · ${found.source} · ${when(found.updatedAt)}
· <a href="${historyHref(slug)}">${t(a.locale, 'webAdmin.knowledge.history')}</a></p>
${found.summary ? html`<p class="summary">${found.summary}</p>` : ''}
<article class="rendered">${trusted(a.markdown(found.content))}</article>
${editor(a, slug, found.revision, problem?.file ?? found.file)}`;
  return htmlPage(
    a.c,
    page(
      {
        locale: a.locale,
        title: found.title,
        section: SECTION,
        ...(notice ? { notice } : {}),
        ...(problem ? { error: problem.error } : {}),
      },
      body,
    ),
    problem?.status ?? 200,
  );
}

const SaveForm = z.object({ slug: SlugSchema, revision: RevisionSchema, file: z.string().max(2_000_000) });

export async function knowledgeSave(a: AdminContext): Promise<Response> {
  const form = await formOf(a.c, SaveForm);
  try {
    const outcome = await a.port.knowledge.save(form.slug, form.file.replace(/\r\n/g, '\n'), form.revision, a.actor);
    return a.c.redirect(`${pageHref(outcome.slug)}&saved=${outcome.revision}`, 303);
  } catch (error) {
    // The page again, with the text as typed: nothing is lost.
    if (error instanceof AdminInputError)
      return knowledgePage(a, { slug: form.slug, error: error.message, file: form.file, status: error.status });
    throw error;
  }
}

const HistoryQuery = z.object({ slug: SlugSchema, revision: RevisionSchema.optional(), reverted: RevisionSchema.optional() });

export async function knowledgeHistory(a: AdminContext): Promise<Response> {
  const { slug, revision, reverted } = queryOf(a.c, HistoryQuery);
  const [current, revisions] = await Promise.all([a.port.knowledge.get(slug), a.port.knowledge.history(slug)]);
  if (!current || !revisions) throw new AdminInputError(`no knowledge page with slug ${slug}`, 404);
  const shown = revisions.find((r) => r.revision === (revision ?? current.revision)) ?? revisions[0]!;
  const previous = revisions.find((r) => r.revision === shown.revision - 1);
  const diff = previous ? lineDiff(previous.file, shown.file) : undefined;
  const rows = revisions.map((r) => [
    r.revision === shown.revision
      ? html`<strong>r${r.revision}</strong>`
      : html`<a href="${historyHref(slug, r.revision)}">r${r.revision}</a>`,
    when(r.createdAt),
    r.source,
    r.author ?? '',
    r.note ?? '',
    r.revision === current.revision
      ? html`<span class="muted">current</span>`
      : html`<form method="post" action="/admin/knowledge/revert" class="inline">
<input type="hidden" name="slug" value="${slug}"><input type="hidden" name="revision" value="${r.revision}"><input type="hidden" name="expected" value="${current.revision}">
<button type="submit">${t(a.locale, 'webAdmin.knowledge.revert', { revision: r.revision })}</button></form>`,
  ]);
  const diffView = !previous
    ? html`<p class="muted">r${shown.revision} is the first revision.</p>`
    : diff
      ? html`<pre class="diff" aria-label="changes from r${previous.revision} to r${shown.revision}">${diff.map(
          (line) =>
            html`<span class="${line.kind}">${line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}${line.text}</span>`,
        )}</pre>`
      : html`<p class="muted">These revisions are too large to compare here.</p>`;
  const notice = reverted !== undefined ? `Reverted ${slug} to revision ${reverted} (now revision ${current.revision}).` : undefined;
  const body = html`<p><a href="${pageHref(slug)}">← ${current.title}</a></p>
${table(['revision', 'when', 'source', 'author', 'note', ''], rows, '')}
<h2>r${previous?.revision ?? ''} → r${shown.revision}</h2>
${diffView}`;
  return htmlPage(
    a.c,
    page(
      {
        locale: a.locale,
        title: `${t(a.locale, 'webAdmin.knowledge.history')}: ${current.title}`,
        section: SECTION,
        ...(notice ? { notice } : {}),
      },
      body,
    ),
  );
}

const RevertForm = z.object({ slug: SlugSchema, revision: RevisionSchema.pipe(z.number().min(1)), expected: RevisionSchema });

export async function knowledgeRevert(a: AdminContext): Promise<Response> {
  const form = await formOf(a.c, RevertForm);
  await a.port.knowledge.revert(form.slug, form.revision, form.expected, a.actor);
  return a.c.redirect(`${historyHref(form.slug)}&reverted=${form.revision}`, 303);
}

/**
 * Paths relative to the folder that was chosen (a browser names each file of a folder upload
 * `<folder>/…`) or zipped (a zip of a folder holds one top folder), so that pages get the slugs
 * `parley knowledge import <folder>` gives them.
 */
function insideRoot<F extends { path: string }>(files: F[]): F[] {
  // A Mac's zip adds __MACOSX/ beside the folder (its entries are skipped by the import anyway).
  const shown = files.filter((f) => !f.path.startsWith('__MACOSX/') && !f.path.startsWith('.'));
  const tops = new Set(shown.map((f) => (f.path.includes('/') ? f.path.split('/')[0] : undefined)));
  const [top] = tops;
  if (tops.size !== 1 || top === undefined || top === '' || top === '..') return files;
  return files.map((f) => (f.path.startsWith(`${top}/`) ? { ...f, path: f.path.slice(top.length + 1) } : f));
}

/** The upload's Markdown files: a folder's files (their relative paths) and a zip's entries. */
async function uploadedFiles(a: AdminContext): Promise<{ files: AdminImportFile[]; dryRun: boolean }> {
  const body = await a.c.req.parseBody({ all: true });
  const list = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
  const files: AdminImportFile[] = [];
  let unpacked = 0;
  const take = (path: string, bytes: Uint8Array) => {
    unpacked += bytes.byteLength;
    if (bytes.byteLength > MAX_FILE_BYTES) throw new AdminInputError(`${path} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`);
    if (unpacked > MAX_UNPACKED_BYTES) throw new AdminInputError(`the upload unpacks to more than ${MAX_UNPACKED_BYTES / 1024 / 1024} MB`);
    files.push({ path, bytes });
  };
  const folder: { path: string; bytes: Uint8Array }[] = [];
  for (const file of list(body.files)) {
    if (file instanceof File && file.size > 0) folder.push({ path: file.name, bytes: new Uint8Array(await file.arrayBuffer()) });
  }
  for (const file of insideRoot(folder)) take(file.path, file.bytes);
  for (const zip of list(body.zip)) {
    if (!(zip instanceof File) || zip.size === 0) continue;
    let entries: Record<string, Uint8Array>;
    try {
      entries = unzipSync(new Uint8Array(await zip.arrayBuffer()), {
        // Declared sizes are checked before anything is inflated (a small zip can unpack to gigabytes).
        filter: (entry) => {
          if (entry.name.endsWith('/')) return false;
          if (entry.originalSize > MAX_FILE_BYTES) throw new AdminInputError(`${entry.name} in ${zip.name} is larger than 5 MB`);
          return /\.(md|markdown)$/i.test(entry.name);
        },
      });
    } catch (error) {
      if (error instanceof AdminInputError) throw error;
      throw new AdminInputError(`${zip.name} is not a readable zip file (${error instanceof Error ? error.message : String(error)})`);
    }
    for (const file of insideRoot(Object.entries(entries).map(([path, bytes]) => ({ path, bytes })))) take(file.path, file.bytes);
  }
  if (files.length === 0) throw new AdminInputError('choose a folder of Markdown files or a .zip to import');
  return { files, dryRun: body.dryRun === '1' };
}

function importReport(report: AdminImportReport): Html {
  const { created, updated, unchanged, failed } = report.counts;
  const rows = report.outcomes.map((o) => [o.file, o.status, o.slug ?? '', o.revision ?? '', o.reason ?? '']);
  return html`<p class="report">${report.dryRun ? 'Dry run: nothing was written. ' : ''}${created} created, ${updated} updated, ${unchanged} unchanged, ${failed} failed.</p>
${table(['file', report.dryRun ? 'would be' : 'status', 'slug', 'revision', 'reason'], rows, '')}`;
}

export async function knowledgeImport(a: AdminContext): Promise<Response> {
  let report: AdminImportReport;
  try {
    const { files, dryRun } = await uploadedFiles(a);
    report = await a.port.knowledge.import(files, dryRun, a.actor);
  } catch (error) {
    if (!(error instanceof AdminInputError)) throw error;
    return htmlPage(
      a.c,
      page({ locale: a.locale, title: t(a.locale, 'webAdmin.knowledge.import'), section: SECTION, error: error.message }, importForm(a)),
      error.status,
    );
  }
  return htmlPage(
    a.c,
    page(
      { locale: a.locale, title: t(a.locale, 'webAdmin.knowledge.import'), section: SECTION },
      html`${importReport(report)}${importForm(a)}`,
    ),
  );
}

export async function knowledgeExport(a: AdminContext): Promise<Response> {
  const files = await a.port.knowledge.exportFiles();
  const zip = zipSync(Object.fromEntries(files.map((f) => [f.path, strToU8(f.text)])), { level: 6 });
  return download(a.c, zip, `parley-knowledge-${new Date().toISOString().slice(0, 10)}.zip`, 'application/zip');
}
