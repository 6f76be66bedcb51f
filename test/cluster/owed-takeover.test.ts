// PostgreSQL, two processes: the one that finished a turn dies (PARLEY_FAILPOINT) before its answer
// was sent. The other one reaps it and delivers the answer from the stored conversation, once,
// without asking the model again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/harness.ts';
import { type Cluster, startCluster } from './cluster.ts';
import { adminUrl } from './pg-database.ts';

describe.runIf(adminUrl)('an answer owed by a process that died', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster('parley_owed');
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('killed after its turn finished, before the answer was sent: the other process delivers it', { timeout: 90_000 }, async () => {
    const { tg, model } = cluster;
    const a = await cluster.start('a', { PARLEY_FAILPOINT: 'answer-finished' });
    const b = await cluster.start('b');
    const alice = tg.user('Alice');
    const chat = tg.privateChat(alice);
    model.enqueue({ text: 'Delivered by the survivor.' });
    const died = new Promise<NodeJS.Signals | null>((resolve) => a.parley.child.once('exit', (_code, signal) => resolve(signal)));
    cluster.routeTo(a);
    tg.say(alice, chat, 'who answers?');
    expect(await died).toBe('SIGKILL');
    cluster.routeTo(b);
    await waitFor(() => tg.botMessages(chat).length > 0, 'the answer delivered by b', 30_000);
    expect(await b.parley.stop()).toBe(0);
    expect(tg.botMessages(chat).map((m) => m.message.text)).toEqual(['Delivered by the survivor.']);
    expect(model.requests).toHaveLength(1);
  });
});
