// `npm start` for real, in both modes: the entry point as a child process configured only through
// the environment, against the fake open platform and the fake model server. In webhook mode the
// fake pushes to /feishu/events on the process's one HTTP listener (PARLEY_HTTP_PORT).
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeFeishu } from '../fakes/feishu/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { killAll, startParley } from '../helpers/child.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { feishuEnv, startFeishuParley } from './process.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each(['webhook', 'ws'] as const)('feishu (%s): the real entry point', (mode) => {
  it('npm start with the Feishu variables serves a conversation end to end', { timeout: 60_000 }, async () => {
    const fs = await FakeFeishu.start();
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-feishu-e2e-');
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => model.close(),
      () => fs.close(),
    );
    const answer = 'Hello from the **real** entry point, streamed into a Feishu card until it is complete.';
    model.enqueue({ text: answer, chunkSize: 10, delayMs: 15 });
    const port = await freePort();
    const parley = await startFeishuParley(fs, mode, feishuEnv(fs, model, mode, dir, { PARLEY_HTTP_PORT: String(port) }));
    expect(parley.output()).toContain(mode === 'ws' ? 'long connection' : `webhook at http://127.0.0.1:${port}/feishu/events`);
    if (mode === 'webhook') expect(fs.webhookUrl).toBe(`http://127.0.0.1:${port}/feishu/events`);

    const dm = fs.p2p();
    const delivery = await fs.push(fs.messageEvent(fs.user('Alice'), dm, 'hello, real bot').event);
    expect(delivery.status).toBe(200);
    await waitFor(() => fs.botMessages(dm)[0] && FakeFeishu.textOf(fs.botMessages(dm)[0]!) === answer, 'the complete answer', 15_000);

    expect(await parley.stop()).toBe(0);
    expect(parley.output()).not.toContain(fs.appSecret);
  });

  it('a wrong app secret stops start-up with one line', { timeout: 60_000 }, async () => {
    const fs = await FakeFeishu.start();
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-feishu-e2e-');
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => model.close(),
      () => fs.close(),
    );
    const parley = startParley(feishuEnv(fs, model, mode, dir, { FEISHU_APP_SECRET: 'wrong-secret-123', PARLEY_LOG_LEVEL: 'silent' }));
    await waitFor(() => parley.child.exitCode !== null, 'the exit', 30_000);
    expect(parley.child.exitCode).toBe(1);
    const lines = parley.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('FEISHU_APP_SECRET');
    expect(parley.output()).not.toContain('wrong-secret-123');
  });
});

describe('feishu: configuration', () => {
  it('FEISHU_WEBHOOK_PORT stops start-up with a line naming PARLEY_HTTP_PORT', { timeout: 60_000 }, async () => {
    const fs = await FakeFeishu.start();
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-feishu-e2e-');
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => model.close(),
      () => fs.close(),
    );
    const parley = startParley(feishuEnv(fs, model, 'webhook', dir, { FEISHU_WEBHOOK_PORT: '8081' }));
    await waitFor(() => parley.child.exitCode !== null, 'the exit', 30_000);
    expect(parley.child.exitCode).toBe(1);
    expect(parley.output().trim().split('\n')).toHaveLength(1);
    expect(parley.output()).toMatch(/FEISHU_WEBHOOK_PORT is no longer read.*PARLEY_HTTP_PORT/);
  });
});
