// The bots under the chaos soak: N Parley processes (`npm start` as operators run it) on one
// database, each killed with SIGKILL and started again on demand.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startScriptNodeOptions } from '../../test/helpers/start-script.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const READY = 'Press Ctrl-C to stop.';

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(TELEGRAM_|OPENAI_|PARLEY_|DATABASE_URL$|DISCORD_|FEISHU_|LARK_)/.test(key)) env[key] = value;
  }
  return env;
}

interface Member {
  child: ChildProcess;
  exited: Promise<void>;
  output: string;
}

export class Fleet {
  readonly #env: Record<string, string>;
  readonly #members: (Member | undefined)[];
  /** What the processes killed so far printed (their last 20 kB each). */
  readonly #past: string[] = [];
  kills = 0;

  constructor(size: number, env: Record<string, string>) {
    this.#env = env;
    this.#members = Array.from({ length: size }, () => undefined);
  }

  get size(): number {
    return this.#members.length;
  }

  /** Starts process `index` and waits for its ready block; returns what it printed so far. */
  async start(index: number): Promise<string> {
    const child = spawn(process.execPath, [...startScriptNodeOptions(ROOT), join(ROOT, 'bin', 'start.mjs')], {
      cwd: ROOT,
      env: { ...cleanEnv(), PARLEY_WEB: 'off', PARLEY_HTTP_PORT: '0', PARLEY_LOG_LEVEL: 'warn', ...this.#env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const member: Member = { child, exited: new Promise((resolve) => child.once('exit', () => resolve())), output: '' };
    const keep = (d: Buffer) => (member.output = (member.output + d.toString()).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.#members[index] = member;
    const deadline = Date.now() + 60_000;
    while (!member.output.includes(READY)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`parley ${index} did not start:\n${member.output}`);
      await sleep(20);
    }
    return member.output;
  }

  async kill9(index: number): Promise<void> {
    const member = this.#members[index];
    if (!member) return;
    member.child.kill('SIGKILL');
    await member.exited;
    this.#past.push(member.output);
    this.kills++;
  }

  /** A clean stop of every process (SIGINT: what is queued is sent first). */
  async stop(): Promise<void> {
    await Promise.all(
      this.#members.map(async (member) => {
        if (!member || member.child.exitCode !== null) return;
        member.child.kill('SIGINT');
        await Promise.race([member.exited, sleep(15_000)]);
        member.child.kill('SIGKILL');
      }),
    );
  }

  /** Error lines the processes printed (the last 20 kB of each life). */
  errors(): string[] {
    const outputs = [...this.#past, ...this.#members.map((m) => m?.output ?? '')];
    return outputs.flatMap((output) => output.split('\n').filter((line) => /"level":(50|60)/.test(line)));
  }
}
