// The figures of the hot-path issue, measured on one running bot. Every phase is bounded.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BareCalls } from './bare-calls.ts';
import type { BotChild } from './child.ts';
import type { TelegramDriver } from './driver.ts';

/** p50s of a 3-round turn's time beyond the model's own share, two ways (see bare-calls.ts). */
interface Beyond {
  /** The turn − its own three requests sent again bare, right after it. */
  replayed: number;
  /** Those three requests, bare. */
  replayedBare: number;
  /** The turn − the same requests sent from the bench's own process (the fake model's). */
  replayedHere: number;
  /** The turn − three one-line bare calls timed just before it. */
  tiny: number;
  tinyBare: number;
}

export interface Figures {
  msgsPerSecond: number;
  latencyP50: number;
  /** 3-round turns in a fresh chat, and in one with a long history. */
  beyondShort: Beyond;
  beyondLong: Beyond;
  /** In a chat whose history no longer fits the context window. */
  beyondOverWindow: Beyond;
  cpuPerMessage: number;
  /** Started and idle for a second, before any message. */
  rssIdle: number;
  rssAfterWarmUp: number;
  rssAfterLoad: number;
  /** Statements per 1-round and 3-round turn (Parley only), and per message under load. */
  sql?: { oneRound: number; threeRound: number; underLoad: number };
}

const CHATS = 200;
const LOAD_MS = 4_000;
const LATENCY_MS = 2_000;
/**
 * Each 3-round figure is the median of this many turns. Single turns on a small VM spread over
 * several ms (a p25–p75 of about 4 ms seen here), so a median of 30 moved by about ±0.7 ms
 * from run to run; of 90, by about half that.
 */
const THREE_ROUND_TURNS = 90;
export const LONG_HISTORY = 150;
/**
 * Questions before the last 3-round turns: with their answers about 30,000 estimated tokens, past
 * the default context window (PARLEY_CONTEXT_TOKENS, 24,000), so every round fits the conversation
 * to it.
 */
export const OVER_WINDOW_HISTORY = 2_000;

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Person `index` asks `count` times in a row (or until `untilMs` passes); returns each time. */
async function sequential(
  driver: TelegramDriver,
  index: number,
  kind: 'ask' | 'tools',
  count: number,
  untilMs = Infinity,
): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + untilMs;
  while (times.length < count && performance.now() < end) times.push(await driver.ask(index, kind));
  return times;
}

/**
 * 3-round turns, each paired with bare model calls (three one-line ones just before it, and its
 * own three requests again just after it), so both see the same load on the machine.
 */
async function beyondModel(driver: TelegramDriver, index: number, bare: BareCalls): Promise<Beyond> {
  const tiny: number[] = [];
  const tinyBare: number[] = [];
  const replayed: number[] = [];
  const replayedBare: number[] = [];
  const replayedHere: number[] = [];
  for (let i = 0; i < THREE_ROUND_TURNS; i++) {
    // The previous turn's last writes (after its answer) must not slow the bare calls down.
    await sleep(50);
    const before = await bare.tiny();
    const requests = bare.record();
    const turn = await driver.ask(index, 'tools');
    const sent = requests();
    if (sent.length !== 3) throw new Error(`a 3-round turn made ${sent.length} model requests`);
    await sleep(50);
    const after = await bare.replay(sent);
    await sleep(50);
    replayedHere.push(turn - (await bare.replayHere(sent)));
    tiny.push(turn - before);
    tinyBare.push(before);
    replayed.push(turn - after);
    replayedBare.push(after);
  }
  return {
    replayed: p50(replayed),
    replayedBare: p50(replayedBare),
    replayedHere: p50(replayedHere),
    tiny: p50(tiny),
    tinyBare: p50(tinyBare),
  };
}

/** Statements one turn sends: the fewest over three tries (a sweep may land inside one). */
async function statementsPerTurn(bot: BotChild, driver: TelegramDriver, index: number, kind: 'ask' | 'tools'): Promise<number> {
  const counts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = (await bot.sqlStatements()) ?? Number.NaN;
    await driver.ask(index, kind);
    await sleep(300); // the turn's last writes (turn end, lease release) follow the answer
    counts.push(((await bot.sqlStatements()) ?? Number.NaN) - before);
  }
  return Math.min(...counts);
}

export async function measure(bot: BotChild, driver: TelegramDriver, countsSql: boolean, bare: BareCalls): Promise<Figures> {
  await sleep(1_000);
  const rssIdle = bot.rssMb();
  // Warm-up: every chat once (sessions exist), then a little more.
  await Promise.all(Array.from({ length: CHATS }, (_, i) => driver.ask(i)));
  await sequential(driver, 0, 'ask', 50);
  await sequential(driver, 0, 'tools', 10);
  await sleep(1_000);
  const rssAfterWarmUp = bot.rssMb();

  // Closed loop: each of 200 chats asks again as soon as it has its answer.
  const sqlBefore = countsSql ? await bot.sqlStatements() : undefined;
  const cpuBefore = bot.cpuMs();
  const started = performance.now();
  const deadline = started + LOAD_MS;
  let messages = 0;
  await Promise.all(
    Array.from({ length: CHATS }, async (_, i) => {
      while (performance.now() < deadline) {
        await driver.ask(i);
        messages++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuPerMessage = (bot.cpuMs() - cpuBefore) / messages;
  const sqlUnderLoad = countsSql ? ((await bot.sqlStatements())! - sqlBefore!) / messages : undefined;

  const latencyP50 = p50(await sequential(driver, 0, 'ask', 1_000, LATENCY_MS));
  // 3-round turns in a fresh chat, then in one with a long history.
  const beyondShort = await beyondModel(driver, CHATS, bare);
  await sequential(driver, CHATS + 1, 'ask', LONG_HISTORY);
  const beyondLong = await beyondModel(driver, CHATS + 1, bare);
  await sequential(driver, CHATS + 2, 'ask', OVER_WINDOW_HISTORY);
  const beyondOverWindow = await beyondModel(driver, CHATS + 2, bare);

  const sql = countsSql
    ? {
        oneRound: await statementsPerTurn(bot, driver, 1, 'ask'),
        threeRound: await statementsPerTurn(bot, driver, 1, 'tools'),
        underLoad: sqlUnderLoad!,
      }
    : undefined;
  await sleep(1_000);
  return {
    msgsPerSecond: messages / seconds,
    latencyP50,
    beyondShort,
    beyondLong,
    beyondOverWindow,
    cpuPerMessage,
    rssIdle,
    rssAfterWarmUp,
    rssAfterLoad: bot.rssMb(),
    ...(sql ? { sql } : {}),
  };
}
