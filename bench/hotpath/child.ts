// A bot under the hot-path benchmark as a child process: started like an operator starts it,
// measured from outside (/proc/<pid>/stat and status), asked for its SQL statement count over IPC.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Linux clock ticks per second (`getconf CLK_TCK`), as good as universal. */
const CLK_TCK = 100;

export interface BotChild {
  readonly name: string;
  readonly pid: number;
  /** CPU time (user + system) the process has used, in ms. */
  cpuMs(): number;
  /** Resident set size, in MB. */
  rssMb(): number;
  /** Statements the store has sent so far (undefined for a bot without a counting store). */
  sqlStatements(): Promise<number | undefined>;
  stop(): Promise<void>;
}

/** Parley's and other environment settings of the parent must not leak into a bot. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(TELEGRAM_|OPENAI_|PARLEY_|DATABASE_URL$|DISCORD_|FEISHU_|LARK_)/.test(key)) env[key] = value;
  }
  return env;
}

export async function startChild(options: {
  name: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  readyLine: string;
}): Promise<BotChild> {
  const child: ChildProcess = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: { ...cleanEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-8_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const deadline = Date.now() + 60_000;
  while (!output.includes(options.readyLine)) {
    if (exited || Date.now() > deadline) throw new Error(`${options.name} did not start:\n${output}`);
    await sleep(20);
  }
  const pid = child.pid!;
  return {
    name: options.name,
    pid,
    cpuMs() {
      // Fields after the command name (which may hold spaces): utime is the 14th, stime the 15th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
    },
    rssMb() {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return Number(kb) / 1024;
    },
    async sqlStatements() {
      if (!child.connected) return undefined;
      const answer = new Promise<number | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 2_000);
        child.once('message', (m: { sql?: number | null }) => {
          clearTimeout(timer);
          resolve(m.sql ?? undefined);
        });
      });
      child.send('sql');
      return answer;
    },
    async stop() {
      if (exited) return;
      if (child.connected) child.disconnect();
      child.kill('SIGTERM');
      const killed = await Promise.race([exit.then(() => false), sleep(15_000).then(() => true)]);
      if (killed) {
        child.kill('SIGKILL');
        await exit;
      }
    },
  };
}
