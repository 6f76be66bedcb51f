// Writing files below a folder without ever leaving it, even when someone planted symbolic links
// in it: every folder on the way must be a real folder (not a link), the file is written to a new
// temporary file (O_EXCL | O_NOFOLLOW) in the verified folder and renamed over the old one, so an
// existing link or hard link is replaced, never written through. The folder given by the person
// (the root) may itself be a link: they named it.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** A path below the root that cannot be written safely; `file` is relative to the root. */
export class UnsafePathError extends Error {
  readonly file: string;
  readonly why: string;
  constructor(file: string, why: string) {
    super(`${file} ${why}`);
    this.name = 'UnsafePathError';
    this.file = file;
    this.why = why;
  }
}

/** Creates `dir` if needed and returns its real path, the root every later write stays inside. */
export async function openRoot(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  return realpath(dir);
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Makes each folder of `parts` below `root`, refusing links and non-folders; returns the last one. */
async function realFolder(root: string, parts: string[]): Promise<string> {
  let dir = root;
  for (const [i, part] of parts.entries()) {
    dir = join(dir, part);
    const shown = parts.slice(0, i + 1).join('/');
    await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const info = await lstat(dir);
    if (info.isSymbolicLink()) throw new UnsafePathError(shown, 'is a symbolic link (nothing is written through links)');
    if (!info.isDirectory()) throw new UnsafePathError(shown, 'is not a folder');
  }
  // Catches a folder swapped for a link after the checks above.
  if ((await realpath(dir)) !== dir) throw new UnsafePathError(parts.join('/'), 'leads outside the folder');
  return dir;
}

/** Writes `text` to `relativePath` ("a/b/c.md") below the real folder `root`. */
export async function writeInside(root: string, relativePath: string, text: string | Uint8Array): Promise<void> {
  const parts = relativePath.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..'))
    throw new UnsafePathError(relativePath, 'is not a plain relative path');
  const name = parts.pop()!;
  const dir = await realFolder(root, parts);
  const path = join(dir, name);
  const existing = await lstatOrUndefined(path);
  if (existing?.isSymbolicLink()) throw new UnsafePathError(relativePath, 'is a symbolic link (nothing is written through links)');
  if (existing && !existing.isFile()) throw new UnsafePathError(relativePath, 'exists and is not a regular file');

  const temp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  try {
    if (dirname(await realpath(temp)) !== dir) throw new UnsafePathError(relativePath, 'leads outside the folder');
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
