// A Feishu message that arrives while the database is out of reach (PostgreSQL refusing
// connections) is neither acknowledged nor lost: the adapter keeps trying to hand it to the core,
// answers Feishu with an error meanwhile (so Feishu pushes it again, to whichever process is alive),
// and once the database is back the message is stored and answered, once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminQuery, adminUrl, freshDatabase } from '../cluster/pg-database.ts';
import { waitFor } from '../helpers/harness.ts';
import { closeFeishu, startFeishu, text, type Mode } from './helpers.ts';

afterEach(closeFeishu);

describe.runIf(adminUrl).each<Mode>(['ws', 'webhook'])('feishu (%s): the database goes away', (mode) => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase(`parley_fs_outage_${mode}`);
  });
  afterAll(async () => {
    await db.drop();
  });

  it('a message pushed while the database is away is not acknowledged, not lost, and answered once it is back', async () => {
    const { fs, h, log } = await startFeishu(mode, { databaseUrl: db.url });
    const name = new URL(db.url).pathname.slice(1);
    const alice = fs.user('Alice');
    const dm = fs.p2p();
    h.model.enqueue({ text: 'First answer.' });
    await fs.push(fs.messageEvent(alice, dm, 'first').event);
    await waitFor(() => fs.botMessages(dm).some((m) => text(m) === 'First answer.'), 'the first answer');

    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await adminQuery('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    h.model.enqueue({ text: 'Second answer.' });
    const second = fs.messageEvent(alice, dm, 'second');
    // One push, as Feishu's first: answered with an error once the deadline passed, not with 200.
    const delivery = await fs.push(second.event, { attempts: 1 });
    expect(delivery.status).not.toBe(200);
    expect(log.lines.some((l) => l.msg?.includes('could not be taken'))).toBe(true);

    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await waitFor(() => fs.botMessages(dm).some((m) => text(m) === 'Second answer.'), 'the answer to the held message', 40_000);
    // Feishu's later push of the same event is taken as a repeat: no second answer.
    expect((await fs.push(second.event, { attempts: 1 })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fs.botMessages(dm).map(text)).toEqual(['First answer.', 'Second answer.']);
    expect(h.model.requests.map((r) => r.body.messages.at(-1)?.content)).toEqual(['first', 'second']);
  });
});
