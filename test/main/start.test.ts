// Starts the real entry point as `npm start` does (`node bin/start.mjs`) in a child process.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.ts';
import { START_ENTRY } from './bot-process.ts';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function start(env: Record<string, string>, cwd: string) {
  // The entry by absolute path: the child runs in an empty folder.
  const child = spawn(process.execPath, [START_ENTRY], {
    cwd,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? '/tmp',
      PARLEY_WEB: 'off',
      PARLEY_LOG_LEVEL: 'warn',
      PARLEY_HTTP_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<Run>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, exited, output: () => stdout };
}

const children: ReturnType<typeof start>[] = [];
afterAll(() => {
  for (const c of children) c.child.kill('SIGKILL');
});

async function until(check: () => boolean, what: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('npm start', () => {
  it('creates ./data/parley.db, prints its ready block, and exits 0 on SIGINT within 5 s', async () => {
    const dir = tempDir();
    const run = start({}, dir);
    children.push(run);
    await until(() => run.output().includes('Press Ctrl-C to stop.'), 'the ready block');
    expect(existsSync(join(dir, 'data', 'parley.db'))).toBe(true);
    const block = run.output();
    expect(block).toContain('Parley is running.');
    expect(block).toMatch(/Model\s+not configured/);
    expect(block).toContain('Set OPENAI_MODEL and OPENAI_BASE_URL');
    expect(block).toMatch(/Database\s+SQLite .*data\/parley\.db/);

    run.child.kill('SIGINT');
    const killer = setTimeout(() => run.child.kill('SIGKILL'), 5_000);
    const result = await run.exited;
    clearTimeout(killer);
    // The whole result on failure says whether it was killed (and by what) and how far it got.
    expect(result).toMatchObject({ code: 0, signal: null });
    expect(result.stdout).toContain('Stopped.');
  });

  for (const [name, env, expected] of [
    [
      'DATABASE_URL',
      { DATABASE_URL: 'mysql://localhost/parley' },
      'parley: Invalid configuration: DATABASE_URL expects file:<path> (SQLite) or postgresql://... (got "mysql:...")',
    ],
    [
      'OPENAI_BASE_URL',
      { OPENAI_BASE_URL: 'localhost:11434' },
      'parley: Invalid configuration: OPENAI_BASE_URL expects an http:// or https:// URL (got "localhost:11434")',
    ],
  ] as const) {
    it(`an invalid ${name} gives one clear line and a non-zero exit`, async () => {
      const run = start(env, tempDir());
      children.push(run);
      const result = await run.exited;
      expect(result.code).not.toBe(0);
      expect(result.stderr.trim()).toBe(expected);
      expect(result.stdout).toBe('');
    });
  }

  it('a database it cannot open gives one clear line', async () => {
    // The "folder" is a regular file, so the database cannot be created there.
    const dir = tempDir();
    writeFileSync(join(dir, 'not-a-folder'), '');
    const run = start({ DATABASE_URL: 'file:./not-a-folder/parley.db' }, dir);
    children.push(run);
    const result = await run.exited;
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^parley: Database error \(SQLite file .*not-a-folder\/parley\.db\): /);
  });
});
