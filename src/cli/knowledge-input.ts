// Where `parley knowledge add` and `edit` get a page from: flags, a Markdown file, standard input,
// or the person's $EDITOR. Every path ends in the same zod validation (parsePageInput).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { PageFileError, pageFromFile, parseFrontMatter, parsePageInput, renderPageFile } from '../knowledge/page-file.ts';
import type { PageInput } from '../knowledge/page.ts';
import { decodePageText, readPageBytes, readStreamBytes } from '../knowledge/text-input.ts';
import type { KnowledgePageRecord } from '../store/repos/knowledge.ts';
import { CliError, type CliIO } from './context.ts';

/** Page fields given as flags (commander's raw strings, validated here). */
export const PageFlagsSchema = z.object({
  slug: z.string().optional(),
  title: z.string().optional(),
  summary: z.string().optional(),
  tags: z.string().optional(),
  ref: z.array(z.string()).optional(),
  content: z.string().optional(),
});
export type PageFlags = z.infer<typeof PageFlagsSchema>;

function flagOverrides(flags: PageFlags): Partial<PageInput> {
  return {
    ...(flags.slug !== undefined ? { slug: flags.slug } : {}),
    ...(flags.title !== undefined ? { title: flags.title } : {}),
    ...(flags.summary !== undefined ? { summary: flags.summary } : {}),
    ...(flags.tags !== undefined ? { tags: flags.tags.split(',') } : {}),
    ...(flags.ref !== undefined ? { references: flags.ref } : {}),
    ...(flags.content !== undefined ? { content: flags.content } : {}),
  };
}

export function hasFieldFlags(flags: PageFlags): boolean {
  return Object.keys(flagOverrides(flags)).length > 0;
}

function fileError(path: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'it is a folder'
        : code === 'EACCES'
          ? 'permission denied'
          : (code ?? String(error));
  return new CliError(`cannot read ${path}: ${why}`);
}

async function readStdin(io: CliIO): Promise<string> {
  if (!io.stdin) throw new CliError('no standard input to read the page from');
  return decodePageText(await readStreamBytes(io.stdin));
}

/** Reads `file` (a path, or "-" for standard input) as UTF-8 text; binary input is a PageFileError. */
async function readInput(io: CliIO, file: string): Promise<string> {
  if (file === '-') return readStdin(io);
  const path = resolve(io.cwd, file);
  let bytes: Buffer;
  try {
    bytes = await readPageBytes(path);
  } catch (error) {
    if (error instanceof PageFileError) throw error;
    throw fileError(file, error);
  }
  return decodePageText(bytes);
}

/** Turns a PageFileError (bad front matter, empty title...) into a bad-input CLI error. */
function asCliError(error: unknown, prefix = ''): unknown {
  return error instanceof PageFileError ? new CliError(`${prefix}${error.message}`) : error;
}

/** The page `add` creates: from a file or stdin when given (flags override it), else from flags alone. */
export async function pageForAdd(io: CliIO, file: string | undefined, flags: PageFlags): Promise<PageInput> {
  const overrides = flagOverrides(flags);
  try {
    if (file === undefined) {
      if (!overrides.slug) throw new CliError('give --slug (or a file whose front matter has a slug)');
      return parsePageInput({ title: '', ...overrides });
    }
    const text = await readInput(io, file);
    if (file === '-' && !overrides.slug && !parseFrontMatter(text).frontMatter.slug) {
      throw new CliError('give --slug (standard input has no file name to take it from)');
    }
    return pageFromFile(text, file === '-' ? '' : basename(file), overrides);
  } catch (error) {
    throw asCliError(error, file === undefined ? '' : file === '-' ? 'standard input: ' : `${file}: `);
  }
}

/** The page with `flags` applied (slug stays). */
export function pageWithFlags(page: KnowledgePageRecord, flags: PageFlags): PageInput {
  const { slug: _ignored, ...overrides } = flagOverrides(flags);
  try {
    return parsePageInput({ ...page, ...overrides, slug: page.slug });
  } catch (error) {
    throw asCliError(error);
  }
}

function runEditor(command: string, file: string, env: Record<string, string | undefined>): Promise<number> {
  return new Promise((resolveExit, reject) => {
    // $EDITOR may carry arguments ("code --wait"), so it goes through the shell like git does it.
    const child = spawn(`${command} ${JSON.stringify(file)}`, { shell: true, stdio: 'inherit', env: env as NodeJS.ProcessEnv });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolveExit(code ?? (signal ? 128 : 1)));
  });
}

export interface EditedPage {
  page: PageInput;
  /** The temporary file, kept when the edit could not be saved so nothing typed is lost. */
  draft: string;
  discard(): Promise<void>;
}

/** Opens the page in $VISUAL / $EDITOR as a Markdown file with front matter; returns what was saved. */
export async function editInEditor(io: CliIO, page: KnowledgePageRecord): Promise<EditedPage> {
  const chosen = io.env.VISUAL || io.env.EDITOR;
  // vi on a pipe would wait for keys that never come (or mangle the page): only on a terminal.
  if (!chosen && !io.terminal) {
    throw new CliError(
      'no terminal to edit in, and no $EDITOR: set EDITOR (e.g. EDITOR="code --wait"), or give the new text with --file <file> (or "-" for stdin) or --content',
    );
  }
  const editor = chosen || 'vi';
  const dir = await mkdtemp(join(tmpdir(), 'parley-edit-'));
  const draft = join(dir, `${page.slug.replace(/\//g, '__')}.md`);
  await writeFile(draft, renderPageFile(page));
  const discard = () => rm(dir, { recursive: true, force: true });
  const code = await runEditor(editor, draft, io.env);
  if (code !== 0) {
    await discard();
    throw new CliError(`the editor (${editor}) exited with code ${code}; nothing changed`, 1);
  }
  try {
    const edited = pageFromFile(decodePageText(await readPageBytes(draft)), '');
    if (edited.slug !== page.slug)
      throw new CliError(`the slug cannot be changed by edit (it was ${page.slug}); your version is kept in ${draft}`);
    return { page: edited, draft, discard };
  } catch (error) {
    if (error instanceof PageFileError) throw new CliError(`${error.message}; your version is kept in ${draft}`);
    throw error;
  }
}
