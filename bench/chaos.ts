// `npm run bench -- chaos`: the crash soak. Chats talk continuously to Parley through the fake Bot
// API (short answers, long streamed ones, a tool that needs approval, approved by a scripted
// clicker) while a bot process is killed with SIGKILL at a random moment every 3-10 s and started
// again: on SQLite (one process) and, when PostgreSQL answers, on PostgreSQL with three processes
// (any of them killed). Prints what the chats ended with. PARLEY_SOAK_SECONDS (default 90) and
// PARLEY_SOAK_CHATS (default 12) size a run; PARLEY_SOAK_DATABASES=sqlite|postgresql picks one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Table from 'cli-table3';
import { FakeModelServer } from '../test/fakes/model-server.ts';
import { FakeTelegram } from '../test/fakes/telegram/index.ts';
import { Fleet } from './chaos/fleet.ts';
import { countingTarget, responder } from './chaos/script.ts';
import { Talk, type Tally } from './chaos/talk.ts';
import { tempPostgres } from './hotpath/postgres.ts';

const SECONDS = Number(process.env.PARLEY_SOAK_SECONDS ?? 90);
const CHATS = Number(process.env.PARLEY_SOAK_CHATS ?? 12);
const random = (min: number, max: number) => min + Math.random() * (max - min);

async function soak(name: string, databaseUrl: string, processes: number): Promise<Tally & { kills: number; errors: number }> {
  const tg = await FakeTelegram.start();
  const model = await FakeModelServer.start();
  const target = await countingTarget();
  model.setFallback(responder(target.url));
  const fleet = new Fleet(processes, {
    TELEGRAM_BOT_TOKEN: tg.token,
    TELEGRAM_API_ROOT: tg.apiRoot,
    TELEGRAM_EDIT_INTERVAL_PRIVATE: '300ms',
    TELEGRAM_EDIT_INTERVAL_GROUP: '600ms',
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'fake-model',
    OPENAI_API_KEY: 'soak',
    DATABASE_URL: databaseUrl,
    PARLEY_ALLOW_PRIVATE_HTTP: 'true',
    PARLEY_RATE_PER_MINUTE: '0',
  });
  try {
    for (let i = 0; i < processes; i++) await fleet.start(i);
    const talk = new Talk(tg, CHATS);
    const talking = talk.run();
    const until = Date.now() + SECONDS * 1000;
    while (Date.now() < until) {
      await sleep(random(3_000, 10_000));
      const victim = Math.floor(Math.random() * processes);
      await fleet.kill9(victim);
      await fleet.start(victim);
      process.stdout.write(`  ${name}: kill -9 #${fleet.kills} (process ${victim})\n`);
    }
    // No more kills: every chat waits for its last answer (or gives up on it), then a clean stop.
    talk.stop();
    await talking;
    await sleep(2_000);
    await fleet.stop();
    return { ...talk.tally(target.posts), kills: fleet.kills, errors: fleet.errors().length };
  } finally {
    await fleet.stop();
    await target.close();
    await model.close();
    await tg.close();
  }
}

function print(results: { name: string; tally: Tally & { kills: number; errors: number } }[]): void {
  const rows: [string, (t: Tally & { kills: number; errors: number }) => string][] = [
    ['kill -9', (t) => String(t.kills)],
    ['messages sent', (t) => String(t.sent)],
    ['answered once', (t) => String(t.answeredOnce)],
    ['answered twice (full duplicates)', (t) => String(t.answeredTwice)],
    ['truncated copies left unmarked', (t) => String(t.truncatedUnmarked)],
    ['marked continuations', (t) => String(t.markedContinuations)],
    ['lost (no answer, no error message)', (t) => String(t.lost)],
    ['error messages in the chats', (t) => String(t.errorNotices)],
    ['approvals run twice', (t) => String(t.approvalsRunTwice)],
    ['approvals never shown', (t) => String(t.approvalsNeverShown)],
    ['message to answer, p50', (t) => `${(t.p50Ms / 1000).toFixed(1)} s`],
    ['message to answer, worst', (t) => `${(t.worstMs / 1000).toFixed(1)} s`],
    ['error lines logged (last 20 kB per process)', (t) => String(t.errors)],
  ];
  const table = new Table({ head: ['figure', ...results.map((r) => r.name)] });
  for (const [label, value] of rows) table.push([label, ...results.map((r) => value(r.tally))]);
  console.log(table.toString());
  for (const { name, tally } of results) if (tally.lostQuestions.length) console.log(`  ${name}: lost ${tally.lostQuestions.join(', ')}`);
}

export async function run(): Promise<void> {
  const only = process.env.PARLEY_SOAK_DATABASES;
  const results: { name: string; tally: Tally & { kills: number; errors: number } }[] = [];
  console.log(`  ${CHATS} chats, ${SECONDS} s of kill -9 every 3-10 s`);
  if (!only || only === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'parley-soak-'));
    try {
      results.push({ name: 'SQLite, 1 process', tally: await soak('SQLite', `file:${join(dir, 'parley.db')}`, 1) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (!only || only === 'postgresql') {
    const db = await tempPostgres();
    if (!db) console.log('  PostgreSQL: not reachable, skipped');
    else {
      try {
        results.push({ name: 'PostgreSQL, 3 processes', tally: await soak('PostgreSQL', db.url, 3) });
      } finally {
        await db.drop();
      }
    }
  }
  print(results);
}
