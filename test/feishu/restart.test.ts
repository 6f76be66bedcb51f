// kill -9 between an approval card and the click, a restart on the same database, then the click:
// the turn resumes and the tool's side effect (an HTTP request counted outside) happens once.
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeFeishu } from '../fakes/feishu/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { killAll, type ParleyProcess } from '../helpers/child.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { promptStored } from '../helpers/prompt-ref.ts';
import type { Mode } from './helpers.ts';
import { feishuEnv, startFeishuParley } from './process.ts';

/** A timeout's message with what the process printed. */
const failWith = (parley: ParleyProcess) => (error: Error) => {
  throw new Error(`${error.message}\n${parley.output()}`);
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

describe.each<Mode>(['webhook', 'ws'])('feishu (%s): a crash between the approval card and the click', (mode) => {
  it('kill -9, restart, click → the turn resumes and the tool runs once', { timeout: 120_000 }, async () => {
    const fs = await FakeFeishu.start();
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-feishu-restart-');
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
      () => fs.close(),
      () => new Promise<void>((resolve) => target.close(() => resolve())),
    );
    const env = feishuEnv(fs, model, mode, dir, { PARLEY_ALLOW_PRIVATE_HTTP: 'true' });

    const first = await startFeishuParley(fs, mode, env);
    const alice = fs.user('Alice');
    const dm = fs.p2p();
    model.enqueue({ toolCalls: [{ name: 'http_request', arguments: { url: targetUrl, method: 'POST', body: 'go' } }] });
    await fs.push(fs.messageEvent(alice, dm, 'post the deploy hook').event);
    const card = await waitFor(() => fs.botMessages(dm).find((m) => FakeFeishu.buttonsOf(m).length > 0), 'the approval card', 20_000).catch(
      failWith(first),
    );
    expect(FakeFeishu.textOf(card)).toContain('POST');
    await promptStored(env.DATABASE_URL!);

    await first.kill9();
    expect(posts).toBe(0);

    const second = await startFeishuParley(fs, mode, env);
    model.enqueue({ text: 'The deploy hook answered 201 created.' });
    const click = await fs.push(fs.clickEvent(alice, card.id, 'Approve'), { attempts: 1 });
    expect(click.status).toBe(200);
    expect(click.ms).toBeLessThan(3_000);
    expect(click.body?.toast?.content).toBe('Approved.');
    await waitFor(
      () => fs.botMessages(dm).some((m) => FakeFeishu.textOf(m) === 'The deploy hook answered 201 created.'),
      'the resumed answer',
      30_000,
    ).catch(failWith(second));
    await waitFor(
      () => FakeFeishu.buttonsOf(card).length === 0 && /Approved by/.test(FakeFeishu.textOf(card)),
      'the card without buttons',
      10_000,
    ).catch(failWith(second));

    expect(await second.stop()).toBe(0);
    expect(posts).toBe(1);
    expect(first.output() + second.output()).not.toContain(fs.appSecret);
  });
});
