// kill -9 while a button press is being decided: the press must not have been confirmed to
// Telegram by then (the next getUpdates confirms what came before it), so the next start gets it
// again and decides it, and the approved call runs once. On PostgreSQL (whose driver does not block
// the process while it waits) the test locks the approvals table, so that the
// press cannot even be read (a statement already sent would still run once the lock is gone),
// kills the process meanwhile, then lets go. Before the fix the press
// was confirmed at once and the approval stayed pending for good (the chaos soak found a chat
// blocked that way).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, startParley } from '../helpers/child.ts';
import { waitFor } from '../helpers/harness.ts';
import { telegramWorld } from '../helpers/telegram-world.ts';
import { adminUrl, freshDatabase } from '../cluster/pg-database.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

describe.runIf(adminUrl)('telegram: a button press and kill -9', () => {
  it('killed before the decision of a press is written: the next start decides it, and the approved call runs once', async () => {
    const { tg, model, env: base } = await telegramWorld(cleanups, 'parley-press-');
    const db = await freshDatabase('parley_press');
    cleanups.push(() => db.drop());
    let posts = 0;
    const target = createServer((req, res) => {
      if (req.method === 'POST') posts++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => target.close(() => resolve())));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;
    model.enqueue(
      { toolCalls: [{ id: 'call_post', name: 'http_request', arguments: { url, method: 'POST', body: 'x' } }] },
      { text: 'Posted.' },
    );
    const env = { ...base, DATABASE_URL: db.url, PARLEY_ALLOW_PRIVATE_HTTP: 'true' };

    const first = startParley(env);
    await first.ready();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'post to the hook please');
    const prompt = await waitFor(() => tg.botMessages(dm).find((m) => m.message.reply_markup), 'the approval prompt', 30_000);
    await waitFor(() => tg.world.queue.length === 0, 'the message confirmed', 10_000);

    const lock = new pg.Client({ connectionString: db.url });
    await lock.connect();
    cleanups.push(() => lock.end());
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE "Approval" IN ACCESS EXCLUSIVE MODE');
    tg.click(alice, dm, prompt.message.message_id, 'Approve');
    // Time for the press to arrive and (without the fix) for the next getUpdates to confirm it.
    await sleep(1_500);
    console.log(
      tg.world.queue.length,
      tg.calls
        .filter((c) => c.method === 'getUpdates')
        .map((c) => c.params.offset)
        .slice(-4),
    );
    await first.kill9();
    await lock.query('ROLLBACK');
    expect(posts).toBe(0);

    const second = startParley(env);
    await second.ready();
    await waitFor(() => tg.botMessages(dm).some((m) => m.message.text === 'Posted.'), 'the answer after the approval', 30_000);
    expect(await second.stop()).toBe(0);
    expect(posts).toBe(1);
  }, 90_000);
});
