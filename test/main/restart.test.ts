// kill -9 in the middle of a turn, then start again: the conversation must not stay blocked by
// the dead process's session lease.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/harness.ts';
import { telegramWorld } from '../helpers/telegram-world.ts';
import { echo, killAll, startBot } from './bot-process.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

describe('npm start: restart after kill -9', () => {
  it('answers the next message within 5 s of the ready block, and continues the interrupted turn', async () => {
    const world = await telegramWorld(cleanups, 'parley-restart-');
    const { tg, model, dir } = world;
    const env = { ...world.env, TELEGRAM_EDIT_INTERVAL_PRIVATE: '50ms' };
    // A slow model: the first answer is still streaming when the process dies.
    model.enqueue({ hang: true, text: 'Let me think' });
    const first = startBot({ cwd: dir, env });
    await first.ready();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'first question');
    await waitFor(() => model.requests.length >= 1, 'the model call', 15_000);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    model.setFallback(echo);
    const second = startBot({ cwd: dir, env });
    const readyAt = await second.ready();
    tg.say(alice, dm, 'second question');
    const answer = () => tg.botMessages(dm).find((m) => m.message.text?.includes('Answer to: second question'));
    await waitFor(answer, 'the answer to the new message', 45_000);
    const answeredAfterMs = Date.now() - readyAt;
    expect(answeredAfterMs, `answered ${answeredAfterMs} ms after the ready block`).toBeLessThan(5_000);
    expect(tg.botMessages(dm).some((m) => m.message.text?.includes('Answer to: first question'))).toBe(true);
  }, 120_000);

  it('a round of knowledge searches is written with its results or not at all: killed during the next model call, the turn goes on from it', async () => {
    const { tg, model, dir, file, env } = await telegramWorld(cleanups, 'parley-restart-round-');
    // Round 1 asks for two searches (idempotent, no approval: they run before the round is written);
    // round 2 is still streaming when the process dies.
    model.enqueue({
      toolCalls: [
        { id: 's1', name: 'search_knowledge', arguments: { query: 'webhooks' } },
        { id: 's2', name: 'search_knowledge', arguments: { query: 'polling' } },
      ],
    });
    model.enqueue({ hang: true, text: 'Based on' });
    const first = startBot({ cwd: dir, env });
    await first.ready();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'how do updates arrive?');
    await waitFor(() => model.requests.length >= 2, 'the second model call', 15_000);
    first.child.kill('SIGKILL');
    await first.exited;

    model.setFallback(echo);
    const second = startBot({ cwd: dir, env });
    await second.ready();
    const answers = () => tg.botMessages(dm).filter((m) => m.message.text?.includes('Answer to: how do updates arrive?'));
    await waitFor(() => answers().length > 0, 'the continued answer', 45_000);
    // The continued turn asked from the written round: the searches' results were in its request.
    const continued = model.requests.at(-1)!.body.messages;
    expect(continued.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['s1', 's2']);
    second.child.kill('SIGTERM');
    await second.exited;
    expect(answers()).toHaveLength(1);
    const db = new Database(file, { readonly: true });
    try {
      const rows = db.prepare(`SELECT "role", "toolCallId" FROM "Message" ORDER BY "id"`).all() as {
        role: string;
        toolCallId: string | null;
      }[];
      expect(rows.map((r) => `${r.role}${r.toolCallId ? `:${r.toolCallId}` : ''}`)).toEqual([
        'user',
        'assistant',
        'tool:s1',
        'tool:s2',
        'assistant',
      ]);
      const turn = db.prepare(`SELECT "status", "rounds" FROM "Turn"`).get() as { status: string; rounds: number };
      expect(turn).toEqual({ status: 'done', rounds: 2 });
    } finally {
      db.close();
    }
  }, 120_000);

  it('under load, with checkpoints on their worker thread: after a kill -9 mid-burst every message is worked through once, and the database is whole', async () => {
    const { tg, model, dir, file, env } = await telegramWorld(cleanups, 'parley-restart-load-');
    model.setFallback(echo);
    const first = startBot({ cwd: dir, env });
    await first.ready();
    const people = Array.from({ length: 10 }, (_, i) => {
      const user = tg.user(`User${i}`);
      return { user, chat: tg.privateChat(user) };
    });
    const answered = (text: string) => people.some(({ chat }) => tg.botMessages(chat).some((m) => m.message.text === `Answer to: ${text}`));
    // Warm-up: well past the 500 statements after which checkpoints move to the worker thread.
    const asked: string[] = [];
    for (let round = 0; round < 6; round++) {
      for (const [i, { user, chat }] of people.entries()) {
        const text = `warm ${round} from ${i}`;
        asked.push(text);
        tg.say(user, chat, text);
      }
      await waitFor(() => asked.every(answered), 'the warm-up answers', 30_000);
    }
    // A burst, and the process killed while it is being answered.
    const burst: string[] = [];
    for (let round = 0; round < 5; round++)
      for (const [i, { user, chat }] of people.entries()) {
        const text = `burst ${round} from ${i}`;
        burst.push(text);
        tg.say(user, chat, text);
      }
    // Killed while the burst is being worked through (messages arriving while a chat's turn runs
    // are answered together, in one turn).
    await waitFor(() => burst.filter(answered).length >= 10, 'some of the burst answered', 30_000);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startBot({ cwd: dir, env });
    await second.ready();
    const reader = new Database(file, { readonly: true });
    const settledNow = () => {
      const open = reader.prepare(`SELECT COUNT(*) AS n FROM "Turn" WHERE "status" <> 'done'`).get() as { n: number };
      const queued = reader.prepare(`SELECT COUNT(*) AS n FROM "InboundEvent" WHERE "status" = 'queued'`).get() as { n: number };
      const users = reader.prepare(`SELECT COUNT(DISTINCT "content") AS n FROM "Message" WHERE "role" = 'user'`).get() as { n: number };
      return open.n === 0 && queued.n === 0 && users.n === asked.length + burst.length;
    };
    try {
      await waitFor(settledNow, 'every message of the burst worked through', 60_000);
    } finally {
      reader.close();
    }
    second.child.kill('SIGTERM');
    await second.exited;
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const unfinished = db.prepare(`SELECT COUNT(*) AS n FROM "Turn" WHERE "status" NOT IN ('done')`).get() as { n: number };
      expect(unfinished.n).toBe(0);
      // Every message asked, in the warm-up and in the burst, is in its conversation once.
      const stored = db.prepare(`SELECT "content", COUNT(*) AS n FROM "Message" WHERE "role" = 'user' GROUP BY "content"`).all() as {
        content: string;
        n: number;
      }[];
      expect(stored.filter((row) => row.n !== 1)).toEqual([]);
      expect(stored.length).toBe(asked.length + burst.length);
    } finally {
      db.close();
    }
  }, 180_000);
});
