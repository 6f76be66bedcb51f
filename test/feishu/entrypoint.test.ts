// `npm start` for real, in both modes: the entry point as a child process configured only through
// the environment, against the fake open platform and the fake model server.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeFeishu } from '../fakes/feishu/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(TELEGRAM_|OPENAI_|PARLEY_|DATABASE_URL$|DISCORD_|FEISHU_|LARK_)/.test(key)) env[key] = value;
  }
  return env;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}

describe.each(['webhook', 'ws'] as const)('feishu (%s): the real entry point', (mode) => {
  it('npm start with the Feishu variables serves a conversation end to end', async () => {
    const fs = await FakeFeishu.start();
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-feishu-e2e-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => model.close(), () => fs.close());
    const answer = 'Hello from the **real** entry point, streamed into a Feishu card until it is complete.';
    model.enqueue({ text: answer, chunkSize: 10, delayMs: 15 });
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: process.cwd(),
      env: {
        ...cleanEnv(),
        FEISHU_APP_ID: fs.appId,
        FEISHU_APP_SECRET: fs.appSecret,
        FEISHU_DOMAIN: fs.baseUrl,
        FEISHU_MODE: mode,
        FEISHU_VERIFICATION_TOKEN: fs.verificationToken,
        FEISHU_WEBHOOK_PORT: String(port),
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
    expect(stdout).toContain(mode === 'ws' ? 'long connection' : 'webhook at');
    if (mode === 'webhook') fs.webhookUrl = `http://127.0.0.1:${port}/feishu/events`;

    const dm = fs.p2p();
    const delivery = await fs.push(fs.messageEvent(fs.user('Alice'), dm, 'hello, real bot').event);
    expect(delivery.status).toBe(200);
    await waitFor(() => fs.botMessages(dm)[0] && FakeFeishu.textOf(fs.botMessages(dm)[0]!) === answer, 'the complete answer', 15_000);

    child.kill('SIGINT');
    await exited(child);
    expect(stdout + stderr).not.toContain(fs.appSecret);
  }, 60_000);

  it('a wrong app secret stops start-up with one line', async () => {
    const fs = await FakeFeishu.start();
    cleanups.push(() => fs.close());
    const dir = tempDir('parley-feishu-e2e-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: process.cwd(),
      env: { ...cleanEnv(), FEISHU_APP_ID: fs.appId, FEISHU_APP_SECRET: 'wrong-secret-123', FEISHU_DOMAIN: fs.baseUrl, FEISHU_MODE: mode, FEISHU_VERIFICATION_TOKEN: 'x', FEISHU_WEBHOOK_PORT: '0', DATABASE_URL: `file:${join(dir, 'parley.db')}`, PARLEY_WEB: 'off', PARLEY_HTTP_PORT: '0', PARLEY_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exited(child)).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('FEISHU_APP_SECRET');
    expect(stderr).not.toContain('wrong-secret-123');
  }, 60_000);
});
