// Runs the real entry point (`node [options] bin/start.mjs` as `npm start` runs it: the compiled dist/) as a
// child process configured only through the environment, to test what survives `kill -9`.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from './harness.ts';
import { startScriptNodeOptions } from './start-script.ts';

/** The parent's environment without any Parley, model or channel settings of its own. */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(TELEGRAM_|OPENAI_|PARLEY_|DATABASE_URL$|DISCORD_|FEISHU_|LARK_)/.test(key)) env[key] = value;
  }
  return env;
}

export interface ParleyProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves once the ready block is printed; throws if the process exits first. */
  ready(timeoutMs?: number): Promise<void>;
  /** SIGKILL, and wait until it is gone. */
  kill9(): Promise<void>;
  /** SIGINT (a clean stop: everything queued is sent first); resolves with the exit code. */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();

export function startParley(env: Record<string, string>): ParleyProcess {
  const root = join(import.meta.dirname, '..', '..');
  const child = spawn(process.execPath, [...startScriptNodeOptions(root), join(root, 'bin', 'start.mjs')], {
    cwd: process.cwd(),
    // The HTTP host on a free port: tests run side by side.
    env: { ...cleanEnv(), PARLEY_WEB: 'off', PARLEY_HTTP_PORT: '0', PARLEY_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    child,
    output: () => out,
    async ready(timeoutMs = 30_000) {
      await waitFor(() => out.includes('Press Ctrl-C to stop.') || child.exitCode !== null, 'the ready block', timeoutMs);
      if (child.exitCode !== null) throw new Error(`parley exited with ${child.exitCode}:\n${out}`);
    },
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGINT');
      await exited;
      return child.exitCode;
    },
  };
}

/** Kill every child still running (call from afterEach). */
export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
}
