// `parley status` over a SQLite store with a known state: one process, the Telegram receiver held by
// it, one session running a turn, two queued messages; as tables and as JSON.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.ts';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { openStore } from '../../src/store/store.ts';
import { tempDir } from '../helpers/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('parley status', () => {
  it('lists processes, receiver holders with their token, sessions running and queued messages', async () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const url = `file:${join(dir, 'parley.db')}`;
    const store = await openStore(parseDatabaseUrl(url));
    cleanups.push(() => store.close());
    const owner = 'host-a:4242:abcd';
    const now = new Date();
    await store.processes.beat({ owner, host: 'host-a', pid: 4242, startedAt: now, channels: ['telegram'] }, now);
    expect(await store.receivers.claim({ receiver: 'telegram', owner, now, leaseUntil: new Date(now.getTime() + 60_000) })).toBe(1);
    const session = await store.sessions.ensure({ key: 'telegram:7', channel: 'telegram', chatId: '7', chatType: 'direct' });
    expect(await store.sessions.acquireLease(session.id, owner, 60_000)).toBe(true);
    for (const eventId of ['1', '2']) {
      await store.inbound.record(
        {
          channel: 'telegram',
          chatId: '7',
          chatType: 'direct',
          messageId: eventId,
          eventId,
          sender: { id: 'u', displayName: 'U', isBot: false },
          text: 'hi',
          attachments: [],
          mentionsBot: false,
          repliesToBot: false,
          receivedAt: now,
        },
        session.id,
        'queued',
      );
    }
    let out = '';
    const io = { out: (t: string) => (out += t), err: (t: string) => (out += t), isTTY: false, env: { DATABASE_URL: url }, cwd: dir };

    expect(await runCli(['status', '--json'], io)).toBe(0);
    const status = JSON.parse(out) as Record<string, unknown>;
    expect(status).toMatchObject({
      processes: [{ owner, host: 'host-a', pid: 4242, channels: ['telegram'] }],
      receivers: [{ receiver: 'telegram', owner, token: 1 }],
      sessionsRunning: [{ key: 'telegram:7', owner }],
      approvalsPending: 0,
      queued: [{ channel: 'telegram', messages: 2 }],
    });

    out = '';
    expect(await runCli(['status'], io)).toBe(0);
    expect(out).toMatch(/telegram\s*│\s*host-a:4242:abcd\s*│\s*1/);
    expect(out).toContain('Queued messages: telegram 2.');
    await store.processes.remove(owner);
    out = '';
    expect(await runCli(['status'], io)).toBe(0);
    expect(out).toContain('host-a:4242:abcd (gone)');
  });
});
