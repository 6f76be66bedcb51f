// Shared by the knowledge tests: the corpus location, a knowledge base on a temporary SQLite file,
// and the `parley` CLI run in-process with captured output.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/program.ts';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { knowledgeIndexFile } from '../../src/knowledge/index-location.ts';
import { KnowledgeBase } from '../../src/knowledge/knowledge-base.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/harness.ts';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CORPUS_DIR = join(REPO_ROOT, '..', 'shared', 'corpora', 'grammy-docs');

export interface TestKnowledge {
  dir: string;
  dbFile: string;
  store: Store;
  kb: KnowledgeBase;
  close(): Promise<void>;
}

const created: string[] = [];

/** A temporary folder removed by removeTempDirs(). */
export function knowledgeTempDir(prefix = 'parley-knowledge-'): string {
  const dir = tempDir(prefix);
  created.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  while (created.length) rmSync(created.pop()!, { recursive: true, force: true });
}

export async function openKnowledge(dir = knowledgeTempDir()): Promise<TestKnowledge> {
  const dbFile = join(dir, 'parley.db');
  const target = parseDatabaseUrl(`file:${dbFile}`);
  const store = await openStore(target);
  const kb = new KnowledgeBase({ repo: store.knowledge, indexFile: knowledgeIndexFile(target) });
  return {
    dir,
    dbFile,
    store,
    kb,
    async close() {
      await kb.close();
      await store.close();
    },
  };
}

/** Writes files (relative path → text) under `root`. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** A `parley` CLI bound to one database; `stdin` feeds commands that read "-". */
export function cliFor(dbFile: string, cwd: string, env: Record<string, string> = {}) {
  return async (argv: string[], stdin?: string): Promise<CliRun> => {
    let out = '';
    let err = '';
    const code = await runCli(argv, {
      out: (text) => (out += text),
      err: (text) => (err += text),
      isTTY: false,
      env: { DATABASE_URL: `file:${dbFile}`, PARLEY_LOG_LEVEL: 'silent', ...env },
      cwd,
      ...(stdin !== undefined ? { stdin: Readable.from([Buffer.from(stdin)]) } : {}),
    });
    return { code, out, err };
  };
}

/** Runs the real `parley` (bin/parley.mjs) as a child process, optionally feeding raw bytes on stdin. */
export function runParley(argv: string[], options: { cwd: string; dbFile: string; stdin?: Uint8Array }): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'parley.mjs'), ...argv], {
      cwd: options.cwd,
      env: { ...process.env, DATABASE_URL: `file:${options.dbFile}`, PARLEY_LOG_LEVEL: 'silent', EDITOR: 'true', VISUAL: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolveRun({ code: code ?? (signal ? 128 : 1), out, err }));
    child.stdin.on('error', () => {}); // a command that never reads stdin may close it first
    child.stdin.end(options.stdin ? Buffer.from(options.stdin) : undefined);
  });
}
