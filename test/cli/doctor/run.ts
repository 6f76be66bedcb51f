// Runs `parley doctor --json` in-process, as bin/doctor.mjs does, with a fresh database folder.
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/program.ts';
import type { ChannelDoctor, DoctorCheck } from '../../../src/core/doctor.ts';
import { tempDir } from '../../helpers/harness.ts';

export interface DoctorRun {
  code: number;
  out: string;
  err: string;
  checks: DoctorCheck[];
  /** The check of this area whose name starts with `check`. */
  find(area: string, check?: string): DoctorCheck | undefined;
}

export const API_KEY = 'sk-doctor-secret-key-0123456789';

/** Env for a migrated SQLite database in a fresh folder (the folder is also the working directory). */
export async function migratedDatabase(): Promise<{ cwd: string; env: Record<string, string> }> {
  const cwd = tempDir('parley-doctor-');
  const env = { DATABASE_URL: `file:${join(cwd, 'parley.db')}`, PARLEY_LOG_LEVEL: 'silent' };
  const code = await runCli(['db', 'migrate'], { out: () => {}, err: () => {}, isTTY: false, env, cwd });
  if (code !== 0) throw new Error('db migrate failed');
  return { cwd, env };
}

export function modelEnv(url: string, model = 'gpt-x'): Record<string, string> {
  return { OPENAI_BASE_URL: url, OPENAI_MODEL: model, OPENAI_API_KEY: API_KEY };
}

export async function doctor(
  base: { cwd: string; env: Record<string, string> },
  env: Record<string, string>,
  channelDoctors: ChannelDoctor[] = [],
  json = true,
): Promise<DoctorRun> {
  let out = '';
  let err = '';
  const argv = ['doctor', '--timeout', '5s', ...(json ? ['--json'] : [])];
  const io = { out: (t: string) => (out += t), err: (t: string) => (err += t), isTTY: false, env: { ...base.env, ...env }, cwd: base.cwd };
  const code = await runCli(argv, io, { channelDoctors });
  const checks = json && out ? (JSON.parse(out) as { checks: DoctorCheck[] }).checks : [];
  return { code, out, err, checks, find: (area, check = '') => checks.find((c) => c.area === area && c.check.startsWith(check)) };
}

/** A port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
