// `npm start` with nothing configured: the real entry point in a child process, in an empty
// folder with an empty environment. The ready block names the console, and the console answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
// The tsx loader by absolute URL: the child runs from an empty folder where 'tsx' would not resolve.
const TSX_LOADER = import.meta.resolve('tsx');

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** `npm start` is `node --import tsx src/main.ts`; run it from an empty folder with only PATH and HOME set. */
function start(env: Record<string, string>): Run {
  const cwd = tempDir('parley-start-');
  const child = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'src', 'main.ts')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  cleanups.push(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(cwd, { recursive: true, force: true });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function until<T>(check: () => T | undefined, what: string, run: Run): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (run.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no ${what}; exit ${run.child.exitCode}\nstdout:\n${run.stdout()}\nstderr:\n${run.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('npm start with nothing configured', () => {
  it('prints the console URL in its ready block, and the page there is the chat', async () => {
    // Port 0 instead of the default 3000, so the test never collides with a running bot.
    const run = start({ PARLEY_WEB_PORT: '0' });
    const url = await until(() => /web console at (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout())?.[1], 'console URL', run);
    expect(run.stdout()).toMatch(/Parley is running\.\n[\s\S]*Channels\s+web console at http:\/\/127\.0\.0\.1:\d+\n[\s\S]*Press Ctrl-C to stop\./);

    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<form id="composer">');
    expect(html).toContain('/assets/app.js');
    expect((await fetch(`${url}/assets/app.js`)).status).toBe(200);

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('stops with one clear line when the console port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    cleanups.push(() => new Promise<void>((done) => blocker.close(() => done())));
    const port = (blocker.address() as AddressInfo).port;

    const run = start({ PARLEY_WEB_PORT: String(port) });
    expect(await run.exited).toBe(1);
    expect(run.stderr().trim()).toBe(
      `parley: could not start: web console: http://127.0.0.1:${port} is already in use; set PARLEY_WEB_PORT to a free port (or PARLEY_WEB=off)`,
    );
  });

  it('refuses to start on a non-loopback address without a token', async () => {
    const run = start({ PARLEY_WEB_HOST: '0.0.0.0' });
    expect(await run.exited).toBe(1);
    expect(run.stderr().trim()).toMatch(/^parley: Invalid configuration: PARLEY_WEB_HOST is 0\.0\.0\.0, .* set PARLEY_WEB_TOKEN/);
    expect(run.stderr().trim().split('\n')).toHaveLength(1);
  });
});
