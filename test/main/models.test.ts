// `npm start` as a child process in a project folder whose parley.config.yaml names two models
// (the first's key from a named variable) with a fallback, and a prompt template; people talk
// through the web console over real HTTP. The ready block and /readyz show each model; a first
// model that is busy past its retry budget, or sends nothing in time, is replaced by the backup
// for that answer; /model switches a room for an admin only; a mistake in the template stops
// start-up with one line naming the file and line.
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../web/client.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';

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

function start(cwd: string, env: Record<string, string>): Run {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'start.mjs')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, PARLEY_HTTP_PORT: '0', PARLEY_LOG_LEVEL: 'warn', ...env },
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
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

function project(config: string): string {
  const dir = tempDir('parley-models-');
  writeFileSync(join(dir, 'parley.config.yaml'), config);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

type Entry = { text?: string; author?: { name: string } };

describe('npm start with two models and a prompt template', () => {
  it('falls back to the second model, shows both in the ready block and /readyz, and /model switches a room for an admin', async () => {
    const primary = await FakeModelServer.start();
    const backup = await FakeModelServer.start();
    cleanups.push(
      () => primary.close(),
      () => backup.close(),
    );
    primary.setModels(['big-model']);
    backup.setModels(['small-model']);
    const dir = project(
      [
        'models:',
        '  default: primary',
        '  fallback: [backup]',
        '  endpoints:',
        '    primary:',
        `      baseUrl: ${primary.url}`,
        '      apiKeyEnv: PRIMARY_KEY',
        '      model: big-model',
        '      timeout: 1s',
        '      maxRetries: 0',
        '      retryBudget: 2s',
        '    backup:',
        `      baseUrl: ${backup.url}`,
        '      model: small-model',
        'prompt:',
        '  template: |',
        '    You are {{ botName }}{% if chatType == "group" %}, helping the room {{ chatTitle }}{% endif %}.',
        '',
      ].join('\n'),
    );
    const run = start(dir, { PRIMARY_KEY: 'sk-primary-123', DATABASE_URL: `file:${join(dir, 'data', 'parley.db')}` });
    await waitFor(() => run.stdout().includes('Press Ctrl-C to stop.') || run.child.exitCode !== null, 'the ready block', 30_000);
    expect(run.stdout(), run.stderr()).toContain('Press Ctrl-C to stop.');
    expect(run.stdout()).toContain(`Model     primary (default): big-model at ${primary.url}: answering\n`);
    expect(run.stdout()).toContain(`            backup (fallback): small-model at ${backup.url}: answering\n`);
    expect(run.stdout()).not.toContain('sk-primary-123');
    const link = /web admin login: (\S+)/.exec(run.stdout())![1]!;
    const base = new URL(link).origin;
    expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({
      ready: true,
      degraded: false,
      model: { answering: true },
      models: { primary: { answering: true }, backup: { answering: true } },
    });

    const alice = new ConsoleClient(base);
    const room = async () => (await alice.json<{ entries: Entry[] }>('/api/chat?room=ops')).entries;
    const answered = (text: string) => waitFor(async () => (await room()).some((e) => e.text === text), `"${text}" in the room`, 20_000);

    // Busy past its retry budget: the backup answers instead.
    primary.enqueue({ status: 503, retryAfter: '30', body: { error: { message: 'overloaded' } } });
    backup.enqueue({ text: 'The backup answers.' });
    expect((await alice.post('/api/messages', { name: 'Alice', room: 'ops', text: '@Parley hello' })).status).toBe(202);
    await answered('The backup answers.');
    expect(primary.requests).toHaveLength(1);
    expect(primary.requests[0]!.headers.authorization).toBe('Bearer sk-primary-123');
    expect(backup.requests[0]!.body.messages[0]!.content).toMatch(/^You are Parley, helping the room ops\.\n\n/);

    // Nothing at all in time (1 s): the backup again.
    primary.enqueue({ hang: true });
    backup.enqueue({ text: 'Backup, second time.' });
    await alice.post('/api/messages', { name: 'Alice', room: 'ops', text: '@Parley and now?' });
    await answered('Backup, second time.');
    expect(primary.requests).toHaveLength(2);

    // Alice is no admin: refused. Carol opens the admin link and switches the room.
    await alice.post('/api/messages', { name: 'Alice', room: 'ops', text: '/model backup' });
    await answered('Only an admin can see or change the model here.');
    const carol = new ConsoleClient(base);
    expect((await carol.get(new URL(link).pathname + new URL(link).search)).status).toBe(303);
    await carol.post('/api/messages', { name: 'Carol', room: 'ops', text: '/model backup' });
    await answered('This chat now uses **backup**.');
    backup.enqueue({ text: 'Chosen backup.' });
    await alice.post('/api/messages', { name: 'Alice', room: 'ops', text: '@Parley once more' });
    await answered('Chosen backup.');
    expect(primary.requests).toHaveLength(2);

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('stops at start with one line naming the template mistake', async () => {
    const dir = project(['prompt:', '  template: |', '    You are {{ botName }}.', '    {{ chat_title }}', ''].join('\n'));
    const run = start(dir, { PARLEY_WEB: 'off', DATABASE_URL: `file:${join(dir, 'parley.db')}` });
    expect(await run.exited).toBe(1);
    expect(run.stderr().trim()).toBe(
      'parley: Invalid prompt template: parley.config.yaml:4: unknown variable "chat_title" (known: botName, channel, chatType, chatTitle, locale, date)',
    );
  });
});
