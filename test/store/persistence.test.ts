import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { openStore } from '../../src/store/store.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled, tempDir } from '../helpers/harness.ts';
import { raceInWorkers } from '../helpers/race.ts';

afterEach(closeAll);

describe('persistence', () => {
  it('keeps the conversation across a restart (a new store on the same file)', async () => {
    const model = await FakeModelServer.start();
    const first = await createHarness({ model });
    model.enqueue({ text: 'Nice to meet you, Alice.' });
    await first.adapter.say('Hi, I am Alice.');
    await settled(first.store, 'memory:dm-u-alice');
    await first.stop();

    const second = await createHarness({ model, dbFile: first.dbFile });
    model.enqueue({ text: 'You are Alice.' });
    await second.adapter.say('Who am I?');
    await settled(second.store, 'memory:dm-u-alice');
    const messages = model.requests.at(-1)!.body.messages.filter((m) => m.role !== 'system');
    expect(messages.map((m) => `${m.role}:${m.content}`)).toEqual([
      'user:Hi, I am Alice.',
      'assistant:Nice to meet you, Alice.',
      'user:Who am I?',
    ]);
    await model.close();
  });

  it('applies migrations once, records them, and is idempotent across opens', async () => {
    const file = join(tempDir(), 'fresh.db');
    const target = parseDatabaseUrl(`file:${file}`);
    const a = await openStore(target);
    expect(a.migrations.applied).toContain('0001_init');
    await a.close();
    const b = await openStore(target);
    expect(b.migrations.applied).toEqual([]);
    expect(b.migrations.alreadyApplied).toContain('0001_init');
    await b.ping();
    await b.close();
  });

  it('de-duplicates inbound events across two store instances racing on one file', async () => {
    const file = join(tempDir(), 'race.db');
    const target = parseDatabaseUrl(`file:${file}`);
    const [a, b] = [await openStore(target), await openStore(target)];
    const session = await a.sessions.ensure({ key: 'memory:dm', channel: 'memory', chatId: 'dm', chatType: 'direct' });
    const inbound = {
      channel: 'memory',
      chatId: 'dm',
      chatType: 'direct' as const,
      messageId: '1',
      eventId: 'evt-1',
      sender: { id: 'u', displayName: 'U', isBot: false },
      text: 'hi',
      attachments: [],
      mentionsBot: false,
      repliesToBot: false,
      receivedAt: new Date(),
    };
    const results = await Promise.all([a.inbound.record(inbound, session.id, 'queued'), b.inbound.record(inbound, session.id, 'queued')]);
    expect(results.sort()).toEqual([false, true]);
    // Old delivery records are pruned; queued (unanswered) ones never are.
    expect(await a.inbound.prune(new Date(Date.now() + 60_000))).toBe(0);
    const done = { ...inbound, eventId: 'evt-2' };
    await a.inbound.record(done, session.id, 'done');
    expect(await a.inbound.prune(new Date(Date.now() - 60_000))).toBe(0);
    expect(await a.inbound.prune(new Date(Date.now() + 60_000))).toBe(1);
    expect(await a.inbound.record(done, session.id, 'done')).toBe(true);
    await a.close();
    await b.close();
  });

  it('gives a session lease to exactly one of several processes racing for it', async () => {
    const file = join(tempDir(), 'lease.db');
    const store = await openStore(parseDatabaseUrl(`file:${file}`));
    const session = await store.sessions.ensure({ key: 'memory:dm', channel: 'memory', chatId: 'dm', chatType: 'direct' });
    await store.close();
    const results = await raceInWorkers<boolean>(file, [
      { op: 'acquireLease', sessionId: session.id, owner: 'process-1' },
      { op: 'acquireLease', sessionId: session.id, owner: 'process-2' },
      { op: 'acquireLease', sessionId: session.id, owner: 'process-3' },
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
