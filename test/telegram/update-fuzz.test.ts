// Real and mutated Telegram updates, generated with fast-check, delivered by the fake Bot API's
// getUpdates to the real grammY bot, the real adapter and the real core, on SQLite and (when
// PARLEY_TEST_POSTGRES_URL is set) PostgreSQL. Whatever arrives: nothing throws out of the
// handler, no promise rejection goes unhandled, every malformed update is logged and skipped, and
// the bot still answers a normal message afterwards.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TelegramAdapter } from '../../adapters/telegram/adapter.ts';
import { loadTelegramConfig } from '../../adapters/telegram/config.ts';
import { classifyUpdate } from './classify.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';
import { botMessages, drained, RecordingLogger, sessionKey } from './helpers.ts';
import { anyUpdate, BOT_ID, BOT_USERNAME } from './update-arbitraries.ts';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeAll(() => void process.on('unhandledRejection', onUnhandled));
afterAll(() => void process.off('unhandledRejection', onUnhandled));

const BATCHES = 6;
const PER_BATCH = 60;
const ANSWER = 'fine';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
  await closeAll();
});

async function startBot(databaseUrl: string | undefined) {
  const tg = await FakeTelegram.start({ id: BOT_ID, username: BOT_USERNAME });
  const model = await FakeModelServer.start();
  model.setFallback(() => ({ text: ANSWER }));
  const log = new RecordingLogger();
  const config = loadTelegramConfig({
    TELEGRAM_BOT_TOKEN: tg.token,
    TELEGRAM_API_ROOT: tg.apiRoot,
    TELEGRAM_EDIT_INTERVAL_PRIVATE: '40ms',
  })!;
  const adapter = new TelegramAdapter({ config, log });
  const h = await createHarness({ adapters: [adapter], model, ...(databaseUrl ? { databaseUrl } : {}) });
  cleanups.push(async () => {
    await h.close();
    await tg.close();
  });
  return { tg, h, log, adapter };
}

/** A PostgreSQL database of its own for this file, dropped afterwards. */
function postgres(): () => string {
  const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL!;
  const database = `parley_fuzz_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  let url = '';
  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database}`);
    const parsed = new URL(adminUrl);
    parsed.pathname = `/${database}`;
    url = parsed.toString();
  });
  afterAll(() => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  return () => url;
}

const stores: [string, (() => string | undefined) | undefined][] = [['SQLite', () => undefined]];
if (process.env.PARLEY_TEST_POSTGRES_URL) stores.push(['PostgreSQL', undefined]);

describe.each(stores)('telegram: arbitrary updates through grammY and the core (%s)', (_name, sqlite) => {
  const databaseUrl = sqlite ?? postgres();

  it('answers a message carrying NUL and unpaired surrogates once, with the text cleaned', { timeout: 60_000 }, async () => {
    const { tg, h } = await startBot(databaseUrl());
    const alice = tg.user('Al\u0000ice \udc00');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'hello\u0000world \ud800!');
    const [reply] = await botMessages(tg, dm);
    await waitFor(() => reply!.message.text === ANSWER, 'the answer');
    await settled(h.store, sessionKey(dm));
    expect(h.model.requests.map((r) => r.body.messages.at(-1)?.content)).toEqual(['helloworld \ufffd!']);
    expect(tg.botMessages(dm)).toHaveLength(1);
  });

  it('logs and skips bad updates, never crashes, and keeps answering', { timeout: 120_000 }, async () => {
    const { tg, h, log, adapter } = await startBot(databaseUrl());
    expect(adapter.identity).toEqual({ id: BOT_ID, username: BOT_USERNAME });
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    const access = { allowedChats: new Set<string>(), allowedUsers: new Set<string>() };
    const kinds: Record<string, number> = {};
    let round = 0;

    await fc.assert(
      fc.asyncProperty(fc.array(anyUpdate, { minLength: PER_BATCH, maxLength: PER_BATCH }), async (updates) => {
        round++;
        for (const update of updates) {
          const updateId = tg.injectRaw(update);
          // What the adapter will make of it, if the fake delivers it (only the kinds the bot asked for).
          const kind = Object.keys(update)[0];
          if (kind === 'message' || kind === 'callback_query') {
            const wire: unknown = JSON.parse(JSON.stringify({ ...update, update_id: updateId }));
            const result = (await classifyUpdate(wire, adapter.identity!, access, 'telegram')).kind;
            kinds[result] = (kinds[result] ?? 0) + 1;
          }
        }
        await drained(tg);
        // A normal message after the batch is still answered, once.
        const before = tg.botMessages(dm).length;
        tg.say(alice, dm, `still there? ${round}`);
        const replies = await botMessages(tg, dm, before + 1);
        await waitFor(() => replies.at(-1)!.message.text === ANSWER, 'the answer to a normal message');
        expect(tg.botMessages(dm)).toHaveLength(before + 1);
      }),
      { seed: 42, numRuns: BATCHES },
    );

    // Every session comes to rest, with at most one turn per message it took (no answer loops).
    const { store } = h;
    await waitFor(async () => {
      for (const session of await store.sessions.list({ limit: 10_000 })) {
        if ((await store.inbound.hasQueued(session.id)) || (await store.turns.active(session.id))) return false;
      }
      return true;
    }, 'every session to settle');
    const turns = await store.turns.list({ limit: 10_000 });
    expect(turns.length).toBeLessThanOrEqual(kinds.message! + BATCHES);

    // Every outcome was exercised on the wire.
    expect(Object.keys(kinds).sort()).toEqual(['button', 'ignored', 'malformed', 'message']);
    const dropped = log.lines.filter((l) => l.level === 'warn' && l.msg?.startsWith('dropped a malformed Telegram update'));
    expect(dropped).toHaveLength(kinds.malformed!);
    expect(log.lines.filter((l) => l.msg?.startsWith('handling a Telegram update failed'))).toEqual([]);
    expect(log.text()).not.toContain(tg.token);
    expect(unhandled).toEqual([]);
  });
});
