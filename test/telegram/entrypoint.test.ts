// `npm start` for real: the entry point runs as a child process, configured only through the
// environment, against the fake Bot API and the fake model server.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The parent's environment without any Parley, model or channel settings of its own. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(TELEGRAM_|OPENAI_|PARLEY_|DATABASE_URL$|DISCORD_|FEISHU_|LARK_)/.test(key)) env[key] = value;
  }
  return env;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

describe('telegram: the real entry point', () => {
  it('npm start with TELEGRAM_BOT_TOKEN serves a conversation end to end, and stops on SIGINT', async () => {
    const tg = await FakeTelegram.start();
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-e2e-');
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => model.close(),
      () => tg.close(),
    );
    const answer = 'Hello from the **real** entry point: this answer is streamed through Telegram message edits until it is complete.';
    model.enqueue({ text: answer, chunkSize: 10, delayMs: 15 });

    // Exactly what `npm start` runs: bin/start.mjs (the compiled dist/), in one process.
    const child = spawn(process.execPath, ['bin/start.mjs'], {
      cwd: process.cwd(),
      env: {
        ...cleanEnv(),
        TELEGRAM_BOT_TOKEN: tg.token,
        TELEGRAM_API_ROOT: tg.apiRoot,
        TELEGRAM_EDIT_INTERVAL_PRIVATE: '50ms',
        OPENAI_BASE_URL: model.url,
        OPENAI_MODEL: 'fake-model',
        OPENAI_API_KEY: 'test-key',
        DATABASE_URL: `file:${join(dir, 'parley.db')}`,
        PARLEY_WEB: 'off',
        PARLEY_HTTP_PORT: '0',
        PARLEY_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

    await waitFor(() => stdout.includes('Press Ctrl-C to stop.') || child.exitCode !== null, 'the ready block', 30_000);
    expect(child.exitCode, stderr).toBeNull();
    expect(stdout).toContain('telegram @parley_test_bot (long polling)');
    expect(tg.commands?.map((c) => c.command)).toContain('reset');

    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'hello, real bot');
    const reply = await waitFor(() => tg.botMessages(dm)[0], 'the first reply', 15_000);
    await waitFor(() => reply.message.text?.endsWith('until it is complete.'), 'the complete answer', 15_000);
    expect(reply.message.text).toBe(answer.replace(/\*\*/g, ''));
    expect(reply.versions.length).toBeGreaterThanOrEqual(2);
    expect(model.requests[0]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'hello, real bot' });

    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
    expect(stdout).toContain('Stopped.');
    expect(stdout + stderr).not.toContain(tg.token);
  });
});
