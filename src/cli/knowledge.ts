// `parley knowledge add|import|list|show|edit|rm|search|synonyms|export|history|revert|reindex`.
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import type { ImportReport } from '../knowledge/importer.ts';
import type { KnowledgeBase } from '../knowledge/knowledge-base.ts';
import type { KnowledgeSaveResult } from '../store/repos/knowledge.ts';
import { CliError, parsePositiveInt, type CliContext } from './context.ts';
import { registerSearchCommands } from './knowledge-search.ts';

const JsonFlag = z.object({ json: z.boolean().optional() });
const collect = (value: string, previous: string[] = []) => [...previous, value];

// What the commands use is imported where a command runs rather than when the CLI starts (a search
// needs none of it); Node caches each module, so a second import is free.
async function withKnowledge<T>(ctx: CliContext, work: (kb: KnowledgeBase) => Promise<T>): Promise<T> {
  const [{ KnowledgeBase }, { knowledgeIndexFile }, { embeddingSettings }] = await Promise.all([
    import('../knowledge/knowledge-base.ts'),
    import('../knowledge/index-location.ts'),
    import('../knowledge/search/embedder.ts'),
  ]);
  const store = await ctx.store();
  const kb = new KnowledgeBase({
    repo: store.knowledge,
    indexFile: knowledgeIndexFile(ctx.config.database, ctx.io.cwd),
    embeddings: embeddingSettings(ctx.config),
  });
  try {
    return await work(kb);
  } finally {
    await kb.close();
  }
}

async function existingPage(kb: KnowledgeBase, slug: string) {
  const page = await kb.get(slug);
  if (!page) throw new CliError(`no knowledge page with slug ${slug} (see: parley knowledge list)`);
  return page;
}

function nonNegativeInt(value: string, name: string): number {
  return value === '0' ? 0 : parsePositiveInt(value, name);
}

function saved(ctx: CliContext, result: KnowledgeSaveResult, json: boolean | undefined): void {
  if (result.status === 'conflict') throw new CliError(`${result.page?.slug ?? 'the page'} changed meanwhile; nothing was written`, 1);
  if (json) {
    ctx.json({ status: result.status, slug: result.page.slug, revision: result.page.revision });
    return;
  }
  const { slug, revision } = result.page;
  ctx.line(
    result.status === 'created'
      ? `Created ${slug} (revision ${revision}).`
      : result.status === 'updated'
        ? `Updated ${slug} (revision ${revision}).`
        : `Unchanged: ${slug} already has this content (revision ${revision}).`,
  );
}

function pageFlags(command: Command): Command {
  return command
    .option('--slug <slug>', 'page id, e.g. guides/setup')
    .option('--title <title>', 'title')
    .option('--summary <text>', 'one or two sentences')
    .option('--tags <list>', 'comma-separated tags')
    .option('--ref <reference>', 'a reference (URL or slug); repeat for several', collect)
    .option('--content <markdown>', 'the page content');
}

export function registerKnowledgeCommands(program: Command, ctx: CliContext): void {
  const knowledge = program.command('knowledge').description('Knowledge pages: add, import, search, edit, history');

  pageFlags(knowledge.command('add [file]'))
    .description('Add a page from flags, a Markdown file, or standard input ("-"); flags override the file')
    .option('--replace', 'overwrite the page if the slug exists (a new revision)')
    .option('--json', 'machine-readable output')
    .action(async (file: string | undefined, raw: unknown) => {
      const { PageFlagsSchema, pageForAdd } = await import('./knowledge-input.ts');
      const options = PageFlagsSchema.extend({ replace: z.boolean().optional(), json: z.boolean().optional() }).parse(raw);
      const page = await pageForAdd(ctx.io, file, options);
      await withKnowledge(ctx, async (kb) => {
        const result = await kb.save(page, { source: 'cli', ...(options.replace ? {} : { expectedRevision: 0 }) });
        if (result.status === 'conflict') {
          throw new CliError(
            `a page with slug ${page.slug} already exists (revision ${result.page?.revision}); use --replace or: parley knowledge edit ${page.slug}`,
          );
        }
        saved(ctx, result, options.json);
      });
    });

  knowledge
    .command('import <dir>')
    .description('Import every Markdown file under a folder (idempotent; bad files are reported, not fatal)')
    .option('--dry-run', 'show what would change without writing')
    .option('--json', 'machine-readable output')
    .action(async (dir: string, raw: unknown) => {
      const options = JsonFlag.extend({ dryRun: z.boolean().optional() }).parse(raw);
      const root = resolve(ctx.io.cwd, dir);
      try {
        statSync(root);
      } catch {
        throw new CliError(`cannot read ${dir}: no such file or folder`);
      }
      const [{ importPages }, { printImportReport }, { progressBar }] = await Promise.all([
        import('../knowledge/importer.ts'),
        import('./knowledge-output.ts'),
        import('./progress.ts'),
      ]);
      const report = await withKnowledge(ctx, async (kb) => {
        const bar = progressBar(ctx.io, options.dryRun ? 'Checking' : 'Importing');
        let imported: Awaited<ReturnType<typeof importPages>>;
        try {
          imported = await importPages(kb, root, {
            dryRun: options.dryRun,
            onProgress: (done, total, file) => bar.update(done, total, file),
          });
        } finally {
          bar.stop();
        }
        // With semantic search on, the new pages' vectors are computed before the command ends.
        if (kb.embeddingModel && !options.dryRun) {
          const embedding = progressBar(ctx.io, 'Embedding');
          try {
            await kb.embedPending(({ done, total }) => embedding.update(done, total));
          } catch (error) {
            ctx.io.err(
              `parley: the pages were imported, but their embeddings could not be computed (${(error as Error).message}); the bot will retry\n`,
            );
          } finally {
            embedding.stop();
          }
        }
        return imported;
      });
      if (options.json) ctx.json(report);
      else printImportReport(ctx, report);
      if (report.counts.failed > 0) throw importFailure(report);
    });

  knowledge
    .command('list')
    .description('Pages in slug order')
    .option('--tag <tag>', 'only pages with this tag')
    .option('--prefix <slug-prefix>', 'only slugs starting with this, e.g. en/')
    .option('--limit <n>', 'how many', '100')
    .option('--offset <n>', 'skip this many', '0')
    .option('--json', 'machine-readable output')
    .action(async (raw: unknown) => {
      const options = JsonFlag.extend({
        tag: z.string().optional(),
        prefix: z.string().optional(),
        limit: z.string(),
        offset: z.string(),
      }).parse(raw);
      const limit = parsePositiveInt(options.limit, '--limit');
      const offset = nonNegativeInt(options.offset, '--offset');
      const { printListing } = await import('./knowledge-output.ts');
      await withKnowledge(ctx, async (kb) => {
        const pages = await kb.list({ limit, offset, tag: options.tag?.toLowerCase(), prefix: options.prefix });
        if (options.json) return ctx.json(pages);
        printListing(ctx, pages, await kb.count(), offset);
      });
    });

  knowledge
    .command('show <slug>')
    .description('Show a page (or one of its revisions)')
    .option('--revision <n>', 'an older revision')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, raw: unknown) => {
      const options = JsonFlag.extend({ revision: z.string().optional() }).parse(raw);
      const { printPage } = await import('./knowledge-output.ts');
      await withKnowledge(ctx, async (kb) => {
        const page = await existingPage(kb, slug);
        if (options.revision === undefined) {
          if (options.json) return ctx.json(page);
          return printPage(ctx, slug, page, page.revision);
        }
        const n = parsePositiveInt(options.revision, '--revision');
        const revision = await kb.revision(slug, n);
        if (!revision) throw new CliError(`${slug} has no revision ${n} (it has 1-${page.revision})`);
        if (options.json) return ctx.json({ slug, ...revision });
        printPage(ctx, slug, { ...revision, updatedAt: revision.createdAt }, page.revision);
      });
    });

  pageFlags(knowledge.command('edit <slug>'))
    .description('Edit a page in $EDITOR (or set fields with flags, or replace it from a file / "-")')
    .option('--file <file>', 'take title, summary, tags and content from this Markdown file ("-" for stdin)')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, raw: unknown) => {
      const { PageFlagsSchema, pageForAdd, hasFieldFlags, pageWithFlags, editInEditor } = await import('./knowledge-input.ts');
      const options = PageFlagsSchema.extend({ file: z.string().optional(), json: z.boolean().optional() }).parse(raw);
      await withKnowledge(ctx, async (kb) => {
        const page = await existingPage(kb, slug);
        if (options.file !== undefined || hasFieldFlags(options)) {
          const input =
            options.file !== undefined ? await pageForAdd(ctx.io, options.file, { ...options, slug }) : pageWithFlags(page, options);
          return saved(ctx, await kb.save(input, { source: 'cli', expectedRevision: page.revision }), options.json);
        }
        const edited = await editInEditor(ctx.io, page);
        const result = await kb.save(edited.page, { source: 'cli', expectedRevision: page.revision });
        if (result.status === 'conflict') {
          throw new CliError(
            `${slug} changed while you were editing (now revision ${result.page?.revision}); your version is kept in ${edited.draft}`,
            1,
          );
        }
        await edited.discard();
        saved(ctx, result, options.json);
      });
    });

  knowledge
    .command('rm <slug>')
    .description('Delete a page and its history')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, raw: unknown) => {
      const options = JsonFlag.parse(raw);
      await withKnowledge(ctx, async (kb) => {
        const page = await existingPage(kb, slug);
        if (!(await kb.remove(slug))) throw new CliError(`no knowledge page with slug ${slug}`);
        if (options.json) return ctx.json({ status: 'deleted', slug, revisions: page.revision });
        ctx.line(`Deleted ${slug} (it had ${page.revision} revision${page.revision === 1 ? '' : 's'}).`);
      });
    });

  registerSearchCommands(knowledge, ctx);

  knowledge
    .command('export <dir>')
    .description('Write every page as <dir>/<slug>.md with front matter (import reads them back unchanged)')
    .option('--json', 'machine-readable output')
    .action(async (dir: string, raw: unknown) => {
      const options = JsonFlag.parse(raw);
      const target = resolve(ctx.io.cwd, dir);
      const [{ exportPages, UnsafePathError }, { progressBar }] = await Promise.all([
        import('../knowledge/exporter.ts'),
        import('./progress.ts'),
      ]);
      const report = await withKnowledge(ctx, async (kb) => {
        const bar = progressBar(ctx.io, 'Exporting');
        try {
          return await exportPages(kb, target, (done, total, file) => bar.update(done, total, file));
        } catch (error) {
          if (error instanceof UnsafePathError) throw new CliError(`cannot export to ${dir}: ${join(dir, error.file)} ${error.why}`);
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EACCES' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'EROFS')
            throw new CliError(`cannot write to ${dir}: ${code}`);
          throw error;
        } finally {
          bar.stop();
        }
      });
      if (options.json) return ctx.json({ dir: target, ...report });
      ctx.line(`Exported ${report.pages} page${report.pages === 1 ? '' : 's'} to ${dir}.`);
    });

  knowledge
    .command('history <slug>')
    .description('Revisions of a page, newest first')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, raw: unknown) => {
      const options = JsonFlag.parse(raw);
      const { printHistory } = await import('./knowledge-output.ts');
      await withKnowledge(ctx, async (kb) => {
        const revisions = await kb.history(slug);
        if (!revisions) throw new CliError(`no knowledge page with slug ${slug} (see: parley knowledge list)`);
        if (options.json) return ctx.json(revisions);
        printHistory(ctx, revisions);
      });
    });

  knowledge
    .command('revert <slug> <revision>')
    .description('Make an older revision current again (as a new revision; history is kept)')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, revisionArg: string, raw: unknown) => {
      const options = JsonFlag.parse(raw);
      const revision = parsePositiveInt(revisionArg, 'revision');
      await withKnowledge(ctx, async (kb) => {
        const page = await existingPage(kb, slug);
        const result = await kb.revert(slug, revision, { source: 'cli', expectedRevision: page.revision });
        if (!result) throw new CliError(`${slug} has no revision ${revision} (it has 1-${page.revision})`);
        if (result.status === 'conflict') throw new CliError(`${slug} changed meanwhile; nothing was written`, 1);
        if (options.json) return ctx.json({ status: result.status, slug, revision: result.page.revision, revertedTo: revision });
        ctx.line(
          result.status === 'unchanged'
            ? `Unchanged: ${slug} already has the content of revision ${revision}.`
            : `Reverted ${slug} to revision ${revision} (now revision ${result.page.revision}).`,
        );
      });
    });

  knowledge
    .command('reindex')
    .description('Rebuild the search index from the database (it is kept in step on its own; this repairs it)')
    .option('--json', 'machine-readable output')
    .action(async (raw: unknown) => {
      const options = JsonFlag.parse(raw);
      const { bytes } = await import('./knowledge-output.ts');
      await withKnowledge(ctx, async (kb) => {
        const report = await kb.rebuild(await indexProgress(ctx));
        const stats = kb.indexStats();
        if (options.json) return ctx.json({ ...stats, ms: report.ms });
        ctx.line(
          `Indexed ${stats.pages} pages (${stats.sections} sections) in ${(report.ms / 1000).toFixed(1)} s: ${stats.file} (${bytes(stats.bytes)}).`,
        );
      });
    });
}

/** Exit 2 when only the files' contents were at fault (the person must fix them), else 1. Names the files. */
function importFailure(report: ImportReport): CliError {
  const failed = report.outcomes.filter((o) => o.status === 'failed');
  const exitCode = report.invalid === failed.length ? 2 : 1;
  if (failed.length === 1) return new CliError(`${failed[0]!.file} could not be imported: ${failed[0]!.reason}`, exitCode);
  const names = failed
    .slice(0, 5)
    .map((o) => o.file)
    .join(', ');
  const more = failed.length > 5 ? ` and ${failed.length - 5} more` : '';
  return new CliError(`${failed.length} files could not be imported (see the report): ${names}${more}`, exitCode);
}

async function indexProgress(ctx: CliContext) {
  const { progressBar } = await import('./progress.ts');
  const bar = progressBar(ctx.io, 'Indexing');
  return ({ done, total }: { done: number; total: number }) => {
    bar.update(done, total);
    if (done >= total) bar.stop();
  };
}
