// How knowledge pages, revisions, search hits and import reports look in the terminal.
import type { ExplainedHit, PageHit } from '../knowledge/knowledge-base.ts';
import type { ImportReport } from '../knowledge/importer.ts';
import type { KnowledgePageListing, KnowledgePageRecord, KnowledgeRevisionRecord } from '../store/repos/knowledge.ts';
import { shortDate, type CliContext } from './context.ts';
import type { MarkedHit } from './knowledge-prompt.ts';

const promptCell = (hit: MarkedHit) => (hit.prompt ? 'yes' : '');

const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/;

/** `text` on one line, cut to `max` terminal columns (CJK characters take two). */
function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  let width = 0;
  let out = '';
  for (const char of flat) {
    width += WIDE.test(char) ? 2 : 1;
    if (width > max - 1) return `${out}…`;
    out += char;
  }
  return out;
}

export function bytes(n: number): string {
  return n >= 1024 ** 2 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`;
}

export function printListing(ctx: CliContext, pages: KnowledgePageListing[], total: number, offset: number): void {
  ctx.table(
    ['slug', 'title', 'tags', 'rev', 'source', 'updated'],
    pages.map((p) => [p.slug, clip(p.title, 50), clip(p.tags.join(', '), 30), p.revision, p.source, shortDate(p.updatedAt)]),
    total === 0 ? 'No knowledge pages yet (add one with: parley knowledge add, or import a folder).' : 'No pages match.',
  );
  if (pages.length > 0 && pages.length < total)
    ctx.line(`Showing ${offset + 1}-${offset + pages.length} of ${total} pages (--offset, --limit for more).`);
}

type Shown = Pick<KnowledgePageRecord, 'title' | 'summary' | 'content' | 'tags' | 'references' | 'revision' | 'source'> & {
  updatedAt: Date;
  author?: string;
  note?: string;
};

export function printPage(ctx: CliContext, slug: string, page: Shown, current: number): void {
  const state = page.revision === current ? 'current' : `current is r${current}`;
  ctx.line(
    `${slug} · revision ${page.revision} (${state}) · ${page.source}${page.author ? ` by ${page.author}` : ''} · ${shortDate(page.updatedAt)}`,
  );
  ctx.line(`Title: ${page.title}`);
  if (page.summary) ctx.line(`Summary: ${page.summary}`);
  if (page.tags.length) ctx.line(`Tags: ${page.tags.join(', ')}`);
  if (page.references.length) ctx.line(`References: ${page.references.join(', ')}`);
  if (page.note) ctx.line(`Note: ${page.note}`);
  ctx.line('');
  ctx.line(page.content || '(no content)');
}

export function printHistory(ctx: CliContext, revisions: KnowledgeRevisionRecord[]): void {
  ctx.table(
    ['rev', 'when', 'source', 'author', 'note', 'title', 'hash'],
    revisions.map((r, i) => [
      `${r.revision}${i === 0 ? ' *' : ''}`,
      shortDate(r.createdAt),
      r.source,
      r.author ?? '',
      r.note ?? '',
      clip(r.title, 40),
      r.hash.slice(0, 8),
    ]),
  );
  ctx.line('* current revision');
}

export function printHits(ctx: CliContext, hits: MarkedHit<PageHit>[]): void {
  ctx.table(
    ['#', 'score', 'match', 'prompt', 'slug', 'section', 'snippet'],
    hits.map((h, i) => [i + 1, h.score.toFixed(2), h.match.toFixed(2), promptCell(h), h.slug, clip(h.section, 40), clip(h.snippet, 80)]),
    'No page matches.',
  );
}

export function printExplained(ctx: CliContext, hits: MarkedHit<ExplainedHit>[], terms: string[], dropped: string[]): void {
  ctx.line(`Query terms: ${terms.join(' ') || '(none)'}${dropped.length ? `; left out as too frequent: ${dropped.join(' ')}` : ''}`);
  ctx.table(
    ['#', 'score', 'match', 'prompt', 'slug', 'section', 'best', 'next', 'title', 'heading', 'summary', 'tags', 'content'],
    hits.map((h, i) => [
      i + 1,
      h.score.toFixed(2),
      h.match.toFixed(2),
      promptCell(h),
      h.slug,
      clip(h.section, 30),
      h.sectionScore.toFixed(2),
      h.nextSectionScore.toFixed(2),
      h.fields.title.toFixed(2),
      h.fields.heading.toFixed(2),
      h.fields.summary.toFixed(2),
      h.fields.tags.toFixed(2),
      h.fields.content.toFixed(2),
    ]),
    'No page matches.',
  );
  if (hits.length) {
    ctx.line('score = best section + ½ × next section of the same page (BM25, weights title 4, heading 2, summary 2, tags 2, content 1);');
    ctx.line('the field columns score the best section with only that field weighted.');
  }
}

export function printImportReport(ctx: CliContext, report: ImportReport): void {
  const { created, updated, unchanged, failed } = report.counts;
  if (report.dryRun) {
    const changes = report.outcomes.filter((o) => o.status === 'created' || o.status === 'updated');
    ctx.table(
      ['would be', 'file', 'slug'],
      changes.map((o) => [o.status, o.file, o.slug ?? '']),
      'Nothing would change.',
    );
  }
  const failures = report.outcomes.filter((o) => o.status === 'failed');
  if (failures.length)
    ctx.table(
      ['failed file', 'reason'],
      failures.map((o) => [o.file, o.reason ?? '']),
    );
  const verb = report.dryRun ? 'Dry run (nothing written): would create' : 'Created';
  ctx.line(`${verb} ${created}, ${report.dryRun ? 'update' : 'updated'} ${updated}, unchanged ${unchanged}, failed ${failed}.`);
}
