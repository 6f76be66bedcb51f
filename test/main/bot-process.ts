// `npm start` as a child process, the way an operator runs it: same entry point, configured only
// through the environment, killable with real signals.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { RecordedRequest } from '../fakes/model-server.ts';
import { waitFor } from '../helpers/harness.ts';

export const ROOT = process.cwd();
/** What `npm start` runs (package.json "start"). */
export const START_ENTRY = join(ROOT, 'bin', 'start.mjs');
const CLI_ENTRY = join(ROOT, 'bin', 'parley.mjs');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** When the process ended (Date.now()). */
  at: number;
}

export interface BotProcess {
  child: ChildProcess;
  exited: Promise<Exit>;
  stdout(): string;
  stderr(): string;
  /** Waits for the ready block; returns when it was seen (Date.now()). Throws if the process ends first. */
  ready(timeoutMs?: number): Promise<number>;
  running(): boolean;
}

/** The parent's environment without any Parley, model or channel settings of its own. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(TELEGRAM_|OPENAI_|PARLEY_|DATABASE_URL$|DISCORD_|FEISHU_|LARK_)/.test(key)) env[key] = value;
  }
  return env;
}

const started: BotProcess[] = [];

/** SIGKILL every child still running (afterEach/afterAll). */
export function killAll(): void {
  for (const bot of started.splice(0)) if (bot.running()) bot.child.kill('SIGKILL');
}

export function spawnNode(args: string[], options: { cwd: string; env?: Record<string, string>; node?: string }): BotProcess {
  const child = spawn(options.node ?? process.execPath, args, {
    cwd: options.cwd,
    // Port 0: tests run side by side, and the default port may be taken.
    env: { ...cleanEnv(), PARLEY_WEB: 'off', PARLEY_LOG_LEVEL: 'warn', PARLEY_HTTP_PORT: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let done = false;
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code, signal) => {
      done = true;
      const at = Date.now();
      // Let the pipes drain before reporting the output.
      setImmediate(() => resolve({ code, signal, stdout, stderr, at }));
    }),
  );
  const bot: BotProcess = {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    running: () => !done,
    async ready(timeoutMs = 30_000) {
      await waitFor(() => stdout.includes('Press Ctrl-C to stop.') || done, 'the ready block', timeoutMs);
      if (!stdout.includes('Press Ctrl-C to stop.')) {
        throw new Error(`the bot ended before it was ready:\n${stdout}\n${stderr}`);
      }
      return Date.now();
    },
  };
  started.push(bot);
  return bot;
}

export function startBot(options: { cwd: string; env?: Record<string, string>; node?: string }): BotProcess {
  return spawnNode([START_ENTRY], options);
}

/** Runs the `parley` CLI to completion. */
export async function runCli(args: string[], options: { cwd: string; env?: Record<string, string>; node?: string }): Promise<Exit> {
  return spawnNode([CLI_ENTRY, ...args], options).exited;
}

/** A model that answers every request with "Answer to: <the last user message>". */
export function echo(request: RecordedRequest) {
  const lastUser = request.body.messages.filter((m) => m.role === 'user').at(-1);
  return { text: `Answer to: ${lastUser?.content ?? '(nothing)'}` };
}
