// The images a conversation showed the model, on disk beside the database (`<data>/media/<session
// id>/<sha256>.jpg`): what a stored message's image marker names, so that the rows keep a file
// name instead of megabytes of base64. Files are written once (named by their content), deleted
// with their session on /reset, and swept after an age limit. On PostgreSQL the folder is ./data
// of each process: an image cached by one process is re-sent by another only if they share it
// (otherwise that process shows its note instead; see docs/multimodal.md).
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const SESSION = /^[A-Za-z0-9_-]{1,100}$/;
const FILE = /^[0-9a-f]{64}\.(?:jpg|webp)$/;

export class MediaCache {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  #sessionDir(sessionId: string): string {
    if (!SESSION.test(sessionId)) throw new Error(`not a session id: ${JSON.stringify(sessionId.slice(0, 40))}`);
    return join(this.dir, sessionId);
  }

  /** Keeps `bytes` for the session; returns the file name a marker carries. */
  async put(sessionId: string, bytes: Buffer, ext: 'jpg' | 'webp'): Promise<string> {
    const name = `${createHash('sha256').update(bytes).digest('hex')}.${ext}`;
    const dir = this.#sessionDir(sessionId);
    await mkdir(dir, { recursive: true });
    const temporary = join(dir, `.${name}.${randomBytes(4).toString('hex')}.tmp`);
    await writeFile(temporary, bytes);
    await rename(temporary, join(dir, name));
    return name;
  }

  /** The file's bytes; undefined when it is gone (swept, reset, another machine's cache). */
  async read(sessionId: string, name: string): Promise<Buffer | undefined> {
    if (!FILE.test(name)) return undefined;
    try {
      return await readFile(join(this.#sessionDir(sessionId), name));
    } catch {
      return undefined;
    }
  }

  async dropSession(sessionId: string): Promise<void> {
    await rm(this.#sessionDir(sessionId), { recursive: true, force: true });
  }

  /** Deletes files older than `maxAgeMs` (and folders left empty); returns how many files went. */
  async sweep(maxAgeMs: number, now = Date.now()): Promise<number> {
    let removed = 0;
    let sessions: string[];
    try {
      sessions = await readdir(this.dir);
    } catch {
      return 0;
    }
    for (const session of sessions) {
      if (!SESSION.test(session)) continue;
      const dir = join(this.dir, session);
      let files: string[];
      try {
        files = await readdir(dir);
      } catch {
        continue;
      }
      let left = files.length;
      for (const file of files) {
        const path = join(dir, file);
        try {
          if (now - (await stat(path)).mtimeMs > maxAgeMs) {
            await rm(path, { force: true });
            removed++;
            left--;
          }
        } catch {
          // Gone meanwhile (a reset): nothing to do.
        }
      }
      if (left === 0) await rm(dir, { recursive: true, force: true }).catch(() => {});
    }
    return removed;
  }
}
