// `parley knowledge import <dir>`: every Markdown file under a folder becomes a page. Idempotent
// (an unchanged file writes nothing; a changed one adds a revision); a bad file is reported and
// skipped, never stopping the rest; a dry run reports what would change without writing. Pages are
// written in batches, each in one transaction and indexed as one segment.
// Folders come from repositories others write: a file is read only if it is UTF-8 text and, when
// it is a link, only if it leads to a regular file inside the imported folder.
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { errorText } from '../core/errors.ts';
import type { KnowledgeBase } from './knowledge-base.ts';
import type { PageInput } from './page.ts';
import { PageFileError, pageFromFile } from './page-file.ts';
import { decodePageText, readPageBytes } from './text-input.ts';

type ImportStatus = 'created' | 'updated' | 'unchanged' | 'failed';

interface ImportOutcome {
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
  /** Failures caused by a file's contents (not text, bad front matter, a slug used twice...), not by reading it. */
  invalid: number;
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

/** Reads `path` as page text; a link must stay inside `realRoot` (undefined: the path was named explicitly). */
async function readPageText(path: string, realRoot: string | undefined): Promise<string> {
  if (realRoot !== undefined && (await lstat(path)).isSymbolicLink()) {
    const target = await realpath(path);
    const inside = relative(realRoot, target);
    if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
      throw new PageFileError('not read: it is a link to a file outside the imported folder');
    }
  }
  if (!(await stat(path)).isFile()) throw new PageFileError('not read: it is not a regular file');
  return decodePageText(await readPageBytes(path));
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

/** Files read before their pages are written together (one transaction, one index segment). */
const BATCH_FILES = 200;
const BATCH_CHARS = 4_000_000;

interface Pending {
  index: number;
  file: string;
  page: PageInput;
}

export async function importPages(kb: KnowledgeBase, root: string, options: ImportOptions = {}): Promise<ImportReport> {
  const files = await markdownFiles(root);
  const isSingleFile = files.length === 1 && files[0] === root;
  // A file named on the command line may be a link; links found inside a folder may not leave it.
  const realRoot = isSingleFile ? undefined : await realpath(root);
  const counts: Record<ImportStatus, number> = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  const outcomes: ImportOutcome[] = new Array(files.length);
  const slugOwners = new Map<string, string>();
  let invalid = 0;
  let done = 0;
  const settle = (index: number, outcome: ImportOutcome, isInvalid = false) => {
    outcomes[index] = outcome;
    counts[outcome.status]++;
    if (isInvalid) invalid++;
  };
  // Pages are written in batches; progress counts a file once its page is written (or has failed).
  let batch: Pending[] = [];
  let batchChars = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    for (const [k, result] of (await saveBatch(kb, batch, options)).entries()) settle(batch[k]!.index, result);
    for (const { file } of batch) options.onProgress?.(++done, files.length, file);
    batch = [];
    batchChars = 0;
  };
  // A large import is indexed in large segments at its end rather than batch by batch.
  await kb.bulk(async () => {
    for (const [i, path] of files.entries()) {
      const file = isSingleFile ? path.split(sep).at(-1)! : relative(root, path).split(sep).join('/');
      const read = await readOne({ path, file, realRoot }, slugOwners);
      if ('outcome' in read) {
        settle(i, read.outcome, read.isInvalid);
        options.onProgress?.(++done, files.length, file);
        continue;
      }
      batch.push({ index: i, file, page: read.page });
      batchChars += read.page.content.length;
      if (batch.length >= BATCH_FILES || batchChars >= BATCH_CHARS) await flush();
    }
    await flush();
  });
  return { dryRun: options.dryRun ?? false, counts, outcomes, invalid };
}

/** The page a file holds, or why it cannot be imported. */
async function readOne(
  { path, file, realRoot }: { path: string; file: string; realRoot: string | undefined },
  slugOwners: Map<string, string>,
): Promise<{ page: PageInput } | { outcome: ImportOutcome; isInvalid: boolean }> {
  try {
    const page = pageFromFile(await readPageText(path, realRoot), file);
    const owner = slugOwners.get(page.slug);
    // Two files with one slug would overwrite each other on every import, so the second one fails.
    if (owner)
      return {
        outcome: { file, status: 'failed', slug: page.slug, reason: `slug ${page.slug} is already used by ${owner}` },
        isInvalid: true,
      };
    slugOwners.set(page.slug, file);
    return { page };
  } catch (error) {
    return { outcome: { file, status: 'failed', reason: reasonOf(error) }, isInvalid: error instanceof PageFileError };
  }
}

/** Writes a batch in one transaction; when that fails, every file of the batch fails with the reason. */
async function saveBatch(kb: KnowledgeBase, batch: Pending[], options: ImportOptions): Promise<ImportOutcome[]> {
  try {
    const results = await kb.saveMany(
      batch.map(({ file, page }) => ({ ...page, note: `import ${file}` })),
      { source: 'import', ...(options.author ? { author: options.author } : {}), ...(options.dryRun ? { dryRun: true } : {}) },
    );
    return results.map((result, k) => {
      const { file, page } = batch[k]!;
      if (result.status === 'conflict')
        return { file, status: 'failed', slug: page.slug, reason: 'the page changed while importing; run the import again' };
      return { file, status: result.status, slug: page.slug, revision: result.page.revision };
    });
  } catch (error) {
    return batch.map(({ file, page }) => ({ file, status: 'failed', slug: page.slug, reason: reasonOf(error) }));
  }
}
