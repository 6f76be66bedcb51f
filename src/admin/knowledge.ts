// The admin pages' knowledge: the CLI's functions over the running bot's knowledge base (search with
// the "would go into the prompt" marks, the editor's page-file validation, revert, the importer and
// the exporter's files), with every change saved under the admin's name and written to the audit log.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markPromptHits, promptLegend } from '../cli/knowledge-prompt.ts';
import type { Config } from '../config/config.ts';
import { type AdminActor, AdminInputError, type AdminKnowledge, type AdminSaveOutcome } from '../core/admin.ts';
import { importPages } from '../knowledge/importer.ts';
import type { KnowledgeBase } from '../knowledge/knowledge-base.ts';
import { PageFileError, pageFromFile, parseFrontMatter, renderPageFile } from '../knowledge/page-file.ts';
import { openRoot, UnsafePathError, writeInside } from '../knowledge/safe-write.ts';
import type { KnowledgeSaveResult } from '../store/repos/knowledge.ts';
import type { Store } from '../store/store.ts';

/** Uploads bigger than these are refused before anything is written. */
const MAX_IMPORT_FILES = 2_000;
const MARKDOWN = /\.(md|markdown)$/i;

export interface AdminKnowledgeOptions {
  kb: KnowledgeBase;
  store: Store;
  settings: Config['knowledge'];
}

function authorOf(actor: AdminActor): string {
  return `${actor.channel}:${actor.id}`;
}

function outcomeOf(slug: string, result: KnowledgeSaveResult): AdminSaveOutcome {
  if (result.status === 'conflict') {
    throw new AdminInputError(
      `${slug} changed meanwhile (now revision ${result.page?.revision ?? '?'}); nothing was written — reload and edit again`,
      409,
    );
  }
  return { status: result.status, slug: result.page.slug, revision: result.page.revision };
}

/**
 * An upload's relative path: 'skip' for hidden files and folders (as the CLI's import skips them;
 * a zip made on a Mac holds __MACOSX/._name.md copies), undefined when it is not a plain relative
 * path (absolute, or with ..).
 */
function plainPath(path: string): string | 'skip' | undefined {
  const parts = path.replace(/\\/g, '/').split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0'))) return undefined;
  if (parts.some((part) => part.startsWith('.') || part === '__MACOSX' || part === 'node_modules')) return 'skip';
  return parts.join('/');
}

export function adminKnowledge({ kb, store, settings }: AdminKnowledgeOptions): AdminKnowledge {
  const audit = (actor: AdminActor, action: string, outcome: string, detail: string) =>
    store.audit.record({ actor: { id: authorOf(actor), displayName: actor.displayName }, action, outcome, detail });

  return {
    async list({ limit, offset, prefix }) {
      const [pages, total] = await Promise.all([kb.list({ limit, offset, ...(prefix ? { prefix } : {}) }), kb.count()]);
      return {
        pages: pages.map((p) => ({
          slug: p.slug,
          title: p.title,
          summary: p.summary,
          tags: p.tags,
          revision: p.revision,
          updatedAt: p.updatedAt,
        })),
        total,
      };
    },

    async search(query, limit) {
      const result = await kb.search(query, { limit });
      const hits = await markPromptHits(kb, settings, query, result.hits);
      return {
        hits: hits.map((h) => ({
          slug: h.slug,
          title: h.title,
          section: h.section,
          snippet: h.snippet,
          score: h.score,
          match: h.match,
          prompt: h.prompt,
        })),
        terms: result.terms,
        legend: promptLegend(settings),
      };
    },

    async get(slug) {
      const page = await kb.get(slug);
      if (!page) return undefined;
      return {
        slug: page.slug,
        title: page.title,
        summary: page.summary,
        tags: page.tags,
        revision: page.revision,
        updatedAt: page.updatedAt,
        content: page.content,
        references: page.references,
        source: page.source,
        file: renderPageFile(page),
      };
    },

    async save(slug, file, expectedRevision, actor) {
      let page: ReturnType<typeof pageFromFile>;
      try {
        // The editor shows the slug in the front matter; without it the page keeps its own.
        page = pageFromFile(file, '', parseFrontMatter(file).frontMatter.slug === undefined ? { slug } : {});
      } catch (error) {
        if (error instanceof PageFileError) throw new AdminInputError(error.message);
        throw error;
      }
      if (page.slug !== slug) throw new AdminInputError(`the slug cannot be changed by an edit (it is ${slug}); nothing was written`);
      const outcome = outcomeOf(slug, await kb.save(page, { source: 'web', author: authorOf(actor), expectedRevision }));
      await audit(actor, 'knowledge.edit', outcome.status, `${slug} r${outcome.revision}`);
      return outcome;
    },

    history: async (slug) => {
      const revisions = await kb.history(slug);
      return revisions?.map((r) => ({
        revision: r.revision,
        title: r.title,
        source: r.source,
        ...(r.author ? { author: r.author } : {}),
        ...(r.note ? { note: r.note } : {}),
        createdAt: r.createdAt,
        file: renderPageFile({ ...r, slug }),
      }));
    },

    async revert(slug, revision, expectedRevision, actor) {
      const result = await kb.revert(slug, revision, { source: 'web', author: authorOf(actor), expectedRevision });
      if (!result) throw new AdminInputError(`${slug} has no revision ${revision}`, 404);
      const outcome = outcomeOf(slug, result);
      await audit(actor, 'knowledge.revert', outcome.status, `${slug} to r${revision}: now r${outcome.revision}`);
      return outcome;
    },

    async import(files, dryRun, actor) {
      const markdown: { path: string; bytes: Uint8Array }[] = [];
      for (const file of files) {
        if (!MARKDOWN.test(file.path)) continue;
        const path = plainPath(file.path);
        if (!path) throw new AdminInputError(`${file.path}: not a plain relative path; nothing was imported`);
        if (path !== 'skip') markdown.push({ path, bytes: file.bytes });
      }
      if (markdown.length === 0) throw new AdminInputError('the upload holds no Markdown file (.md or .markdown)');
      if (markdown.length > MAX_IMPORT_FILES)
        throw new AdminInputError(`the upload holds ${markdown.length} Markdown files; at most ${MAX_IMPORT_FILES} at once`);
      const dir = await mkdtemp(join(tmpdir(), 'parley-web-import-'));
      try {
        const root = await openRoot(dir);
        for (const file of markdown) {
          try {
            // The bytes as uploaded: the importer decides what is text and reports what is not.
            await writeInside(root, file.path, file.bytes);
          } catch (error) {
            if (error instanceof UnsafePathError) throw new AdminInputError(`${file.path}: ${error.why}; nothing was imported`);
            throw error;
          }
        }
        const report = await importPages(kb, root, { dryRun, author: authorOf(actor) });
        if (!dryRun) {
          const { created, updated, failed } = report.counts;
          await audit(actor, 'knowledge.import', failed ? 'partly' : 'done', `${created} created, ${updated} updated, ${failed} failed`);
        }
        return { dryRun: report.dryRun, counts: report.counts, outcomes: report.outcomes };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },

    async exportFiles() {
      const files: { path: string; text: string }[] = [];
      for await (const page of kb.allPages()) files.push({ path: `${page.slug}.md`, text: renderPageFile(page) });
      return files.sort((a, b) => (a.path < b.path ? -1 : 1));
    },
  };
}
