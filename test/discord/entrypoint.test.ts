// `npm start` for real, as child processes configured only through the environment: a
// conversation end to end, then kill -9 between an approval prompt and the click, a restart on
// the same database, and the click resuming the turn (the tool's HTTP request counted outside).
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../fakes/discord/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { promptStored } from '../helpers/prompt-ref.ts';

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
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

interface Running {
  child: ChildProcess;
  output(): string;
}

async function startParley(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, ['bin/start.mjs'], {
    cwd: process.cwd(),
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('Press Ctrl-C to stop.') || child.exitCode !== null, 'the ready block', 30_000);
  expect(child.exitCode, output).toBeNull();
  return { child, output: () => output };
}

describe('discord: the real entry point', () => {
  it('npm start serves a conversation; kill -9 between prompt and click, restart, click → the turn resumes once', {
    timeout: 120_000,
  }, async () => {
    const dc = await FakeDiscord.start();
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-discord-e2e-');
    let posts = 0;
    const target = createServer((req, res) => {
      if (req.method === 'POST') posts++;
      res.writeHead(201, { 'content-type': 'text/plain' }).end('created');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/deploy`;
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => model.close(),
      () => dc.close(),
      () => new Promise<void>((resolve) => target.close(() => resolve())),
    );
    const env = {
      DISCORD_BOT_TOKEN: dc.token,
      DISCORD_API_ROOT: dc.apiRoot,
      DISCORD_EDIT_INTERVAL: '200ms',
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'fake-model',
      OPENAI_API_KEY: 'test-key',
      DATABASE_URL: `file:${join(dir, 'parley.db')}`,
      PARLEY_WEB: 'off',
      PARLEY_HTTP_PORT: '0',
      PARLEY_ALLOW_PRIVATE_HTTP: 'true',
      PARLEY_LOG_LEVEL: 'warn',
    };

    const first = await startParley(env);
    expect(first.output()).toContain('discord @parley_test_bot');
    expect((dc.commands.get('global') ?? []).length).toBe(7);

    const alice = dc.user('Alice');
    const dm = dc.dm(alice);
    const answer = 'Hello from the **real** entry point on Discord: streamed by editing one message until complete.';
    model.enqueue({ text: answer, chunkSize: 10, delayMs: 30 });
    dc.say(alice, dm, 'hello, real bot');
    const reply = await waitFor(() => dc.botMessages(dm)[0], 'the first reply', 15_000);
    await waitFor(() => reply.message.content === answer, 'the complete answer', 15_000);

    model.enqueue({ toolCalls: [{ name: 'http_request', arguments: { url: targetUrl, method: 'POST', body: 'go' } }] });
    dc.say(alice, dm, 'post the deploy hook');
    const prompt = await waitFor(() => dc.botMessages(dm).find((m) => m.message.components.length > 0), 'the approval prompt', 15_000);
    expect(prompt.message.content).toContain('POST');
    await promptStored(env.DATABASE_URL);

    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(posts).toBe(0);

    const { identifies, resumes } = dc.gateway;
    const second = await startParley(env);
    // The killed process recorded its gateway session when it connected: the restart resumes it.
    expect([dc.gateway.identifies, dc.gateway.resumes]).toEqual([identifies, resumes + 1]);
    model.enqueue({ text: 'The deploy hook answered 201 created.' });
    const click = dc.click(alice, prompt.message, dc.buttonOf(prompt.message, 'Approve'));
    const ack = await waitFor(() => dc.interactions.get(click)!.ack, 'the acknowledgement', 10_000);
    expect(ack.at - dc.interactions.get(click)!.createdAt).toBeLessThan(3_000);
    await waitFor(
      () => dc.botMessages(dm).some((m) => m.message.content === 'The deploy hook answered 201 created.'),
      'the resumed answer',
      20_000,
    );
    await waitFor(
      () => prompt.message.components.length === 0 && /Approved by Alice/.test(prompt.message.content),
      'the outcome on the prompt',
      10_000,
    );
    expect(posts).toBe(1);

    second.child.kill('SIGINT');
    expect(await exited(second.child)).toBe(0);
    expect(first.output() + second.output()).not.toContain(dc.token);
  });
});
