// `npm run bench -- hotpath`: Parley (SQLite, and PostgreSQL when reachable) side by side with a
// bot that stores nothing (bench/minimal-bot.ts), each a child process driven over real sockets
// through the fake Bot API, against the fake model answering at once. Prints the hot-path issue's
// figures with their ratio to the minimal bot, and the SQL statements per turn (counted).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Table from 'cli-table3';
import { FakeModelServer } from '../test/fakes/model-server.ts';
import { BareCalls } from './hotpath/bare-calls.ts';
import { startChild } from './hotpath/child.ts';
import { modelResponder, TelegramDriver } from './hotpath/driver.ts';
import { startScriptNodeOptions } from '../test/helpers/start-script.ts';
import { LONG_HISTORY, measure, OVER_WINDOW_HISTORY, type Figures } from './hotpath/measure.ts';
import { tempPostgres } from './hotpath/postgres.ts';

const ROOT = join(import.meta.dirname, '..');

/** PARLEY_BENCH_PROFILE=<dir>: each Parley child writes a V8 CPU profile there (node --cpu-prof). */
function profileArgs(name: string): string[] {
  const dir = process.env.PARLEY_BENCH_PROFILE;
  if (!dir) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name.replace(/\W+/g, '-')}.cpuprofile`];
}

type Target = { name: string; kind: 'minimal' } | { name: string; kind: 'parley'; databaseUrl: string };

async function run1(target: Target, model: FakeModelServer, dir: string, bare: BareCalls): Promise<Figures> {
  const driver = await TelegramDriver.start();
  const env = {
    TELEGRAM_BOT_TOKEN: driver.telegram.token,
    TELEGRAM_API_ROOT: driver.telegram.apiRoot,
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'fake',
    OPENAI_API_KEY: 'bench',
  };
  const bot =
    target.kind === 'minimal'
      ? await startChild({
          name: target.name,
          args: [...profileArgs(target.name), '--import', 'tsx', join(ROOT, 'bench', 'minimal-bot.ts')],
          cwd: ROOT,
          env,
          readyLine: 'minimal bot ready',
        })
      : await startChild({
          name: target.name,
          args: [
            ...profileArgs(target.name),
            ...startScriptNodeOptions(ROOT),
            '--import',
            join(ROOT, 'bench', 'hotpath', 'probe.mjs'),
            join(ROOT, 'bin', 'start.mjs'),
          ],
          cwd: dir,
          env: {
            ...env,
            DATABASE_URL: target.databaseUrl,
            PARLEY_WEB: 'off',
            PARLEY_HTTP_PORT: '0',
            PARLEY_LOG_LEVEL: 'warn',
            PARLEY_COUNT_SQL: '1',
            // The driver's people ask far more than the per-person limit allows: measured without it.
            PARLEY_RATE_PER_MINUTE: '0',
          },
          readyLine: 'Press Ctrl-C to stop.',
        });
  try {
    return await measure(bot, driver, target.kind === 'parley', bare);
  } finally {
    await bot.stop();
    await driver.close();
    model.requests.length = 0;
  }
}

const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

type Goal = (value: number, base: number, name: string) => boolean;
const isPostgres = (name: string) => name.includes('PostgreSQL');

function print(results: { name: string; figures: Figures }[]): void {
  const base = results[0]!.figures;
  const table = new Table({ head: ['figure', ...results.map((r) => r.name), 'goal'], style: { head: [], border: [] } });
  // Beside each Parley figure: its ratio to the minimal bot's (or, for times that are close to
  // zero on the minimal bot, the difference in ms), and whether it meets the goal.
  const row = (label: string, value: (f: Figures) => number, unit: string, goal: string, met?: Goal, compare: 'ratio' | 'diff' = 'ratio') =>
    table.push([
      label,
      ...results.map((r, i) => {
        const v = value(r.figures);
        if (!i) return `${fmt(v)} ${unit}`;
        const beside = compare === 'ratio' ? `${fmt(v / value(base), 2)}×` : `${v >= value(base) ? '+' : ''}${fmt(v - value(base))} ms`;
        const verdict = met ? (met(v, value(base), r.name) ? '  met' : '  MISSED') : '';
        return `${fmt(v)} ${unit}  (${beside})${verdict}`;
      }),
      goal,
    ]);
  row(
    '1-round turns, 200 chats, closed loop',
    (f) => f.msgsPerSecond,
    'msgs/s',
    '≥ 0.5× (PostgreSQL ≥ 0.35×)',
    (v, b, name) => v >= b * (isPostgres(name) ? 0.35 : 0.5),
  );
  row(
    'one chat, latency p50',
    (f) => f.latencyP50,
    'ms',
    '≤ 2× minimal + 3 ms',
    (v, b) => v <= 2 * b + 3,
  );
  row(
    '3-round turn beyond its 3 requests sent bare, p50, fresh chat',
    (f) => f.beyondShort.replayed,
    'ms',
    '≤ 2 ms',
    (v) => v <= 2,
    'diff',
  );
  row(
    `  same, after ${LONG_HISTORY} earlier messages`,
    (f) => f.beyondLong.replayed,
    'ms',
    '≤ 2 ms (flat as history grows)',
    (v) => v <= 2,
    'diff',
  );
  row(
    `  same, after ${OVER_WINDOW_HISTORY} earlier questions (past the context window)`,
    (f) => f.beyondOverWindow.replayed,
    'ms',
    '≤ 2 ms (flat as history grows)',
    (v) => v <= 2,
    'diff',
  );
  row('  its 3 requests sent bare, p50 (subtracted), fresh', (f) => f.beyondShort.replayedBare, 'ms', '', undefined, 'diff');
  row(`  the same after ${LONG_HISTORY} earlier messages`, (f) => f.beyondLong.replayedBare, 'ms', '', undefined, 'diff');
  row('  the same past the context window', (f) => f.beyondOverWindow.replayedBare, 'ms', '', undefined, 'diff');
  row(
    `  beyond them sent from the fake model's own process (the yardstick before), fresh`,
    (f) => f.beyondShort.replayedHere,
    'ms',
    '',
    undefined,
    'diff',
  );
  row(`  the same after ${LONG_HISTORY} earlier messages`, (f) => f.beyondLong.replayedHere, 'ms', '', undefined, 'diff');
  row('  the same past the context window', (f) => f.beyondOverWindow.replayedHere, 'ms', '', undefined, 'diff');
  row('  beyond 3 one-line bare calls instead, fresh', (f) => f.beyondShort.tiny, 'ms', '', undefined, 'diff');
  row(`  the same after ${LONG_HISTORY} earlier messages`, (f) => f.beyondLong.tiny, 'ms', '', undefined, 'diff');
  row('  the same past the context window', (f) => f.beyondOverWindow.tiny, 'ms', '', undefined, 'diff');
  row('  3 one-line bare calls, p50 (subtracted there), fresh', (f) => f.beyondShort.tinyBare, 'ms', '', undefined, 'diff');
  row(
    'CPU per message (under load)',
    (f) => f.cpuPerMessage,
    'ms',
    '≤ 3×',
    (v, b) => v <= 3 * b,
  );
  row(
    'RSS idle (started, no message yet)',
    (f) => f.rssIdle,
    'MB',
    '≤ 100 MB',
    (v) => v <= 100,
  );
  row('RSS idle after the warm-up', (f) => f.rssAfterWarmUp, 'MB', '');
  row('RSS after the run', (f) => f.rssAfterLoad, 'MB', '');
  console.log(table.toString());
  for (const { name, figures } of results) {
    if (!figures.sql) continue;
    const { oneRound, threeRound, underLoad } = figures.sql;
    const verdict = oneRound <= 10 && threeRound <= 20 ? 'met' : 'MISSED';
    console.log(
      `${name}: SQL statements per 1-round turn ${oneRound}, per 3-round turn ${threeRound}, per message under load ${fmt(underLoad)} (goal ≤ 10 / ≤ 20: ${verdict})`,
    );
  }
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-hotpath-'));
  const model = await FakeModelServer.start();
  model.setFallback(modelResponder);
  const postgres = await tempPostgres();
  const targets: Target[] = [
    { name: 'minimal bot', kind: 'minimal' },
    { name: 'Parley (SQLite)', kind: 'parley', databaseUrl: `file:${join(dir, 'parley.db')}` },
    ...(postgres ? [{ name: 'Parley (PostgreSQL)', kind: 'parley' as const, databaseUrl: postgres.url }] : []),
  ];
  if (!postgres) console.log('PostgreSQL: not reachable (PARLEY_TEST_POSTGRES_URL or 127.0.0.1:5432), measured on SQLite only');
  const bare = await BareCalls.start(model);
  try {
    const results: { name: string; figures: Figures }[] = [];
    for (const target of targets) {
      const started = performance.now();
      results.push({ name: target.name, figures: await run1(target, model, dir, bare) });
      console.log(`  measured ${target.name} in ${fmt((performance.now() - started) / 1000)} s`);
    }
    print(results);
  } finally {
    bare.close();
    await model.close();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
