// Feishu de-duplicates message sends by `uuid` (one message per uuid within an hour): every piece of
// an answer carries one derived from its turn, round and index. kill -9 after the answer reached
// Feishu but before the process recorded it delivered: the next start delivers the owed answer
// again with the same uuid, and the chat still has one message.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeFeishu } from '../fakes/feishu/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { killAll } from '../helpers/child.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { feishuEnv, startFeishuParley } from './process.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

const ANSWER = 'The release train leaves every Tuesday at ten.';

describe('feishu: idempotent sends', () => {
  it('killed right after the answer was sent: the owed answer is sent again with the same uuid, one message in the chat', async () => {
    const fs = await FakeFeishu.start();
    const model = await FakeModelServer.start();
    const dir = tempDir('parley-feishu-uuid-');
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => model.close(),
      () => fs.close(),
    );
    const env = feishuEnv(fs, model, 'webhook', dir);
    model.enqueue({ text: ANSWER });

    const first = await startFeishuParley(fs, 'webhook', { ...env, PARLEY_FAILPOINT: 'answer-sent' });
    const died = new Promise<NodeJS.Signals | null>((resolve) => first.child.once('exit', (_code, signal) => resolve(signal)));
    const dm = fs.p2p();
    void fs.push(fs.messageEvent(fs.user('Alice'), dm, 'when does the release train leave?').event).catch(() => {});
    expect(await died).toBe('SIGKILL');
    expect(fs.botMessages(dm).map(FakeFeishu.textOf)).toEqual([ANSWER]);

    const second = await startFeishuParley(fs, 'webhook', env);
    // The owed answer is sent again (the same uuid), answered with the first message.
    await waitFor(() => fs.callsTo('POST', /\/open-apis\/im\/v1\/messages/).length >= 2, 'the repeated send', 30_000);
    expect(await second.stop()).toBe(0);
    expect(fs.botMessages(dm).map(FakeFeishu.textOf)).toEqual([ANSWER]);
    expect(model.requests).toHaveLength(1);
  }, 60_000);
});
