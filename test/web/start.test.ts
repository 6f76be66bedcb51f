// `npm start` as a child process, in an empty folder with an empty environment: the ready block
// names the one HTTP listener, the console and its one-time admin login, and they answer; bad
// listener settings stop it with one line.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeModelServer } from '../fakes/model-server.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { ConsoleClient } from './client.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

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

/** `npm start` is `node bin/start.mjs`; run it from an empty folder with only PATH and HOME set. */
function start(env: Record<string, string>): Run {
  const cwd = tempDir('parley-start-');
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'start.mjs')], {
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
    const run = start({ PARLEY_HTTP_PORT: '0' });
    const url = await until(() => /web console at (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout())?.[1], 'console URL', run);
    await until(() => (run.stdout().includes('Press Ctrl-C to stop.') ? true : undefined), 'the ready block', run);
    expect(run.stdout()).toMatch(
      /Parley is running\.\n[\s\S]*HTTP\s+http:\/\/127\.0\.0\.1:\d+ \(\/healthz, \/readyz\)\n[\s\S]*Channels\s+web console at http:\/\/127\.0\.0\.1:\d+\n\s+web admin login: http:\/\/127\.0\.0\.1:\d+\/admin-login\?code=\S+ \(works once; makes that browser an admin\)\n[\s\S]*Press Ctrl-C to stop\./,
    );
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({
      ready: true,
      database: 'ok',
      channels: { web: 'started' },
      notReady: [],
    });

    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<form id="composer">');
    expect(html).toContain('/assets/app.js');
    expect((await fetch(`${url}/assets/app.js`)).status).toBe(200);

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('stops with one clear line when the HTTP port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    cleanups.push(() => new Promise<void>((done) => blocker.close(() => done())));
    const port = (blocker.address() as AddressInfo).port;

    const run = start({ PARLEY_HTTP_PORT: String(port) });
    expect(await run.exited).toBe(1);
    expect(run.stderr().trim()).toBe(
      `parley: could not start: http: http://127.0.0.1:${port} is already in use; set PARLEY_HTTP_PORT to a free port`,
    );
  });

  it('refuses to serve the console on a non-loopback address without a token', async () => {
    const run = start({ PARLEY_HTTP_HOST: '0.0.0.0' });
    expect(await run.exited).toBe(1);
    expect(run.stderr().trim()).toMatch(/^parley: Invalid configuration: PARLEY_HTTP_HOST is 0\.0\.0\.0, .* set PARLEY_WEB_TOKEN/);
    expect(run.stderr().trim().split('\n')).toHaveLength(1);
  });

  it('refuses the old PARLEY_WEB_PORT / PARLEY_WEB_HOST with one line naming the new variable', async () => {
    const cases = [
      ['PARLEY_WEB_PORT', '0', 'PARLEY_HTTP_PORT'],
      ['PARLEY_WEB_HOST', '127.0.0.1', 'PARLEY_HTTP_HOST'],
    ] as const;
    const runs = cases.map(([old, value]) => start({ PARLEY_HTTP_PORT: '0', [old]: value }));
    for (const [i, [old, , replacement]] of cases.entries()) {
      expect(await runs[i]!.exited).toBe(1);
      expect(runs[i]!.stderr().trim()).toBe(
        `parley: Invalid configuration: ${old} is no longer read; set ${replacement} instead (one listener serves the web console, /healthz, /readyz and webhooks)`,
      );
    }
  });

  it('with PARLEY_WEB=off still serves /healthz and /readyz, and no console', async () => {
    const run = start({ PARLEY_HTTP_PORT: '0', PARLEY_WEB: 'off' });
    const url = await until(() => /HTTP\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout())?.[1], 'the HTTP line', run);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/readyz`)).json()).toMatchObject({ ready: true, channels: {} });
    expect((await fetch(url)).status).toBe(404);
    expect(run.stdout()).not.toMatch(/web console at|admin login/);
  });
});

describe('npm start: the web admin login', () => {
  it("makes the browser that opens the printed link an admin who may decide anyone's approval", async () => {
    const model = await FakeModelServer.start();
    cleanups.push(() => model.close());
    model.enqueue(
      {
        toolCalls: [{ name: 'write_knowledge_page', arguments: { slug: 'notes/ops', title: 'Ops notes', content: 'Restart with care.' } }],
      },
      { text: 'Saved the page.' },
    );
    const run = start({ PARLEY_HTTP_PORT: '0', OPENAI_BASE_URL: model.url, OPENAI_MODEL: 'fake-model', OPENAI_API_KEY: 'test-key' });
    const link = await until(() => /web admin login: (\S+)/.exec(run.stdout())?.[1], 'the admin login link', run);
    const base = new URL(link).origin;

    const alice = new ConsoleClient(base);
    expect((await alice.post('/api/messages', { name: 'Alice', room: 'ops', text: '@Parley note how to restart' })).status).toBe(202);
    type Entry = { id: string; buttons: { label: string; payload: string }[][] };
    const prompt = await waitFor(
      async () => (await alice.json<{ entries: Entry[] }>('/api/chat?room=ops')).entries.find((e) => e.buttons.length),
      'the approval prompt',
      20_000,
    );
    const approve = {
      name: 'Carol',
      room: 'ops',
      messageId: prompt.id,
      payload: prompt.buttons.flat().find((b) => b.label === 'Approve')!.payload,
    };

    const carol = new ConsoleClient(base);
    expect(await (await carol.post('/api/actions', approve)).json()).toEqual({
      toast: 'Only Alice (who asked) or an admin can decide this.',
    });
    expect((await carol.get(new URL(link).pathname + new URL(link).search)).status).toBe(303);
    expect(await (await carol.post('/api/actions', approve)).json()).toEqual({ toast: 'Approved.' });
    await waitFor(
      async () =>
        (await alice.json<{ entries: { text?: string }[] }>('/api/chat?room=ops')).entries.some((e) => e.text?.includes('Saved the page.')),
      'the answer',
      20_000,
    );
  });
});
