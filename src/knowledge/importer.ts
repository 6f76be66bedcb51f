// `parley knowledge import <dir>`: every Markdown file under a folder becomes a page. Idempotent
// (an unchanged file writes nothing; a changed one adds a revision); a bad file is reported and
// skipped, never stopping the rest; a dry run reports what would change without writing.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { errorText } from '../core/errors.ts';
import type { KnowledgeBase } from './knowledge-base.ts';
import { PageFileError, pageFromFile } from './page-file.ts';

export type ImportStatus = 'created' | 'updated' | 'unchanged' | 'failed';

export interface ImportOutcome {
  /** Path relative to the imported folder, with / separators. */
  file: string;
  status: ImportStatus;
  slug?: string;
  revision?: number;
  reason?: string;
}

export interface ImportReport {
  dryRun: boolean;
  counts: Record<ImportStatus, number>;
  outcomes: ImportOutcome[];
}

export interface ImportOptions {
  dryRun?: boolean;
  author?: string;
  onProgress?: (done: number, total: number, file: string) => void;
}

const MARKDOWN = /\.(md|markdown)$/i;
const SKIPPED_FOLDERS = new Set(['node_modules']);

/** Markdown files under `root`, sorted, skipping hidden entries and node_modules. */
export async function markdownFiles(root: string): Promise<string[]> {
  const info = await stat(root);
  if (info.isFile()) return [root];
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) await walk(path);
      // Links are listed too (not followed into folders): a broken one is then reported, not ignored.
      else if ((entry.isFile() || entry.isSymbolicLink()) && MARKDOWN.test(entry.name)) out.push(path);
    }
  };
  await walk(root);
  return out;
}

function reasonOf(error: unknown): string {
  if (error instanceof PageFileError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'unreadable file (permission denied)';
  if (code === 'EISDIR') return 'unreadable file (it is a folder)';
  if (code === 'ENOENT') return 'unreadable file (missing, or a broken link)';
  if (code) return `unreadable file (${code})`;
  return errorText(error).split('\n')[0]!;
}

export async function importPages(kb: KnowledgeBase, root: string, options: ImportOptions = {}): Promise<ImportReport> {
  const files = await markdownFiles(root);
  const isSingleFile = files.length === 1 && files[0] === root;
  const counts: Record<ImportStatus, number> = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  const outcomes: ImportOutcome[] = [];
  const slugOwners = new Map<string, string>();
  for (const [i, path] of files.entries()) {
    const file = isSingleFile ? path.split(sep).at(-1)! : relative(root, path).split(sep).join('/');
    const outcome = await importOne(kb, path, file, slugOwners, options);
    counts[outcome.status]++;
    outcomes.push(outcome);
    options.onProgress?.(i + 1, files.length, file);
  }
  return { dryRun: options.dryRun ?? false, counts, outcomes };
}

async function importOne(
  kb: KnowledgeBase,
  path: string,
  file: string,
  slugOwners: Map<string, string>,
  options: ImportOptions,
): Promise<ImportOutcome> {
  try {
    const page = pageFromFile(await readFile(path, 'utf8'), file);
    const owner = slugOwners.get(page.slug);
    // Two files with one slug would overwrite each other on every import, so the second one fails.
    if (owner) return { file, status: 'failed', slug: page.slug, reason: `slug ${page.slug} is already used by ${owner}` };
    slugOwners.set(page.slug, file);
    const result = await kb.save(page, {
      source: 'import',
      note: `import ${file}`,
      ...(options.author ? { author: options.author } : {}),
      ...(options.dryRun ? { dryRun: true } : {}),
    });
    if (result.status === 'conflict') return { file, status: 'failed', slug: page.slug, reason: 'the page changed while importing; run the import again' };
    return { file, status: result.status, slug: page.slug, revision: result.page.revision };
  } catch (error) {
    return { file, status: 'failed', reason: reasonOf(error) };
  }
}
