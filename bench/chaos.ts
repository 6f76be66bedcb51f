// `npm run bench -- chaos`: the crash soak. Chats talk continuously to Parley through a platform's
// fake (short answers, long streamed ones, a tool that needs approval, approved by a scripted
// clicker) while a bot process is killed with SIGKILL at a random moment every 3-10 s and started
// again: on SQLite (one process) and, when PostgreSQL answers, on PostgreSQL with three processes
// (any of them killed). Prints what the chats ended with. PARLEY_SOAK_SECONDS (default 90) and
// PARLEY_SOAK_CHATS (default 12) size a run; PARLEY_SOAK_DATABASES=sqlite|postgresql picks one;
// PARLEY_SOAK_PLATFORMS=telegram,discord,feishu (default telegram) the platforms, one after the
// other; PARLEY_SOAK_FEISHU_MODE=webhook|ws Feishu's event delivery (default: webhook with one
// process, long connection with three).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Table from 'cli-table3';
import { FakeModelServer } from '../test/fakes/model-server.ts';
import { DiscordSoak } from './chaos/discord.ts';
import { type FeishuMode, FeishuSoak } from './chaos/feishu.ts';
import { Fleet } from './chaos/fleet.ts';
import type { SoakPlatform } from './chaos/platform.ts';
import { countingTarget, responder } from './chaos/script.ts';
import { Talk, type Tally } from './chaos/talk.ts';
import { TelegramSoak } from './chaos/telegram.ts';
import { tempPostgres } from './hotpath/postgres.ts';

const SECONDS = Number(process.env.PARLEY_SOAK_SECONDS ?? 90);
const CHATS = Number(process.env.PARLEY_SOAK_CHATS ?? 12);
const random = (min: number, max: number) => min + Math.random() * (max - min);

type Result = Tally & {
  kills: number;
  errors: number;
  errorMessages: string[];
  clicksAgain: number | undefined;
  pushesGivenUp: number | undefined;
};
type PlatformName = 'telegram' | 'discord' | 'feishu';

async function platformFor(name: PlatformName, processes: number): Promise<SoakPlatform> {
  if (name === 'discord') return DiscordSoak.start();
  if (name === 'feishu') {
    const mode = (process.env.PARLEY_SOAK_FEISHU_MODE as FeishuMode | undefined) ?? (processes > 1 ? 'ws' : 'webhook');
    if (mode === 'webhook' && processes > 1) throw new Error('Feishu by webhook is soaked with one process (the fake pushes to one URL)');
    return FeishuSoak.start(mode);
  }
  return TelegramSoak.start();
}

async function soak(
  platformName: PlatformName,
  label: string,
  databaseUrl: string,
  processes: number,
): Promise<{ name: string; tally: Result }> {
  const platform = await platformFor(platformName, processes);
  const model = await FakeModelServer.start();
  const target = await countingTarget();
  model.setFallback(responder(target.url));
  const fleet = new Fleet(processes, {
    ...platform.env(),
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'fake-model',
    OPENAI_API_KEY: 'soak',
    DATABASE_URL: databaseUrl,
    PARLEY_ALLOW_PRIVATE_HTTP: 'true',
    PARLEY_RATE_PER_MINUTE: '0',
  });
  const name = `${platform.name}, ${label}`;
  const start = async (index: number) => {
    const output = await fleet.start(index);
    platform.started?.(index, output);
  };
  try {
    const talk = new Talk(platform, CHATS);
    for (let i = 0; i < processes; i++) await start(i);
    const talking = talk.run();
    const until = Date.now() + SECONDS * 1000;
    while (Date.now() < until) {
      await sleep(random(3_000, 10_000));
      const victim = Math.floor(Math.random() * processes);
      await fleet.kill9(victim);
      platform.killed?.(victim);
      await start(victim);
      process.stdout.write(`  ${name}: kill -9 #${fleet.kills} (process ${victim})\n`);
    }
    // No more kills: every chat waits for its last answer (or gives up on it), then a clean stop.
    talk.stop();
    await talking;
    platform.quiesce?.();
    await sleep(2_000);
    await fleet.stop();
    const clicks = 'clicks' in platform ? (platform.clicks as { repeated: number }).repeated : undefined;
    const givenUp = platform instanceof FeishuSoak ? platform.eventsGivenUp : undefined;
    return {
      name,
      tally: {
        ...talk.tally(target.posts),
        kills: fleet.kills,
        errors: fleet.errors().length,
        errorMessages: distinctMessages(fleet.errors()),
        clicksAgain: clicks,
        pushesGivenUp: givenUp,
      },
    };
  } finally {
    await fleet.stop();
    await target.close();
    await model.close();
    await platform.close();
  }
}

/** The distinct `msg` of logged error lines, with how often each came. */
function distinctMessages(lines: string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of lines) {
    let msg = line.slice(0, 200);
    try {
      msg = String((JSON.parse(line) as { msg?: unknown }).msg ?? msg).slice(0, 200);
    } catch {}
    counts.set(msg, (counts.get(msg) ?? 0) + 1);
  }
  return [...counts].map(([msg, n]) => `${n} × ${msg}`);
}

function print(results: { name: string; tally: Result }[]): void {
  const rows: [string, (t: Result) => string][] = [
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
    ['clicks repeated (first one dropped)', (t) => (t.clicksAgain === undefined ? '-' : String(t.clicksAgain))],
    ['events never accepted (5 pushes)', (t) => (t.pushesGivenUp === undefined ? '-' : String(t.pushesGivenUp))],
    ['message to answer, p50', (t) => `${(t.p50Ms / 1000).toFixed(1)} s`],
    ['message to answer, worst', (t) => `${(t.worstMs / 1000).toFixed(1)} s`],
    ['error lines logged (last 20 kB per process)', (t) => String(t.errors)],
  ];
  const table = new Table({ head: ['figure', ...results.map((r) => r.name)] });
  for (const [label, value] of rows) table.push([label, ...results.map((r) => value(r.tally))]);
  console.log(table.toString());
  for (const { name, tally } of results) {
    if (tally.lostQuestions.length) console.log(`  ${name}: lost ${tally.lostQuestions.join(', ')}`);
    if (tally.doubledQuestions.length) console.log(`  ${name}: answered twice ${tally.doubledQuestions.join(', ')}`);
    for (const notice of tally.noticesWhereLost) console.log(`  ${name}: told ${notice}`);
    for (const message of tally.errorMessages) console.log(`  ${name}: logged ${message}`);
  }
}

export async function run(): Promise<void> {
  const only = process.env.PARLEY_SOAK_DATABASES;
  const platforms = (process.env.PARLEY_SOAK_PLATFORMS ?? 'telegram').split(',').map((p) => p.trim()) as PlatformName[];
  for (const p of platforms)
    if (!['telegram', 'discord', 'feishu'].includes(p)) throw new Error(`PARLEY_SOAK_PLATFORMS: unknown platform ${p}`);
  const results: { name: string; tally: Result }[] = [];
  console.log(`  ${CHATS} chats, ${SECONDS} s of kill -9 every 3-10 s`);
  for (const platform of platforms) {
    if (!only || only === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'parley-soak-'));
      try {
        results.push(await soak(platform, 'SQLite, 1 process', `file:${join(dir, 'parley.db')}`, 1));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    if (!only || only === 'postgresql') {
      const db = await tempPostgres();
      if (!db) console.log('  PostgreSQL: not reachable, skipped');
      else {
        try {
          results.push(await soak(platform, 'PostgreSQL, 3 processes', db.url, 3));
        } finally {
          await db.drop();
        }
      }
    }
  }
  print(results);
}
