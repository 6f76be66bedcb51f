// The installed command: `parley doctor` reaches each platform's checks through bin/doctor.mjs
// (src/ never imports an adapter), and `parley --version` prints package.json's version.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorCheck } from '../../../src/core/doctor.ts';
import { FakeTelegram } from '../../fakes/telegram/index.ts';
import { cleanEnv } from '../../helpers/child.ts';
import { closedPort, migratedDatabase, modelEnv } from './run.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const run = promisify(execFile);
let tg: FakeTelegram;

beforeAll(async () => {
  tg = await FakeTelegram.start();
});
afterAll(() => tg.close());

async function parley(argv: string[], env: Record<string, string>, cwd: string) {
  try {
    const { stdout } = await run(process.execPath, [join(ROOT, 'bin', 'parley.mjs'), ...argv], { cwd, env: { ...cleanEnv(), ...env } });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('bin/parley.mjs', () => {
  it('runs the platform checks of `parley doctor` and exits 1 on a problem', async () => {
    const base = await migratedDatabase();
    const env = {
      ...base.env,
      ...modelEnv(`http://127.0.0.1:${await closedPort()}/v1`),
      TELEGRAM_BOT_TOKEN: tg.token,
      TELEGRAM_API_ROOT: tg.apiRoot,
    };
    const result = await parley(['doctor', '--json', '--timeout', '5s'], env, base.cwd);
    expect(result.code).toBe(1);
    const checks = (JSON.parse(result.stdout) as { checks: DoctorCheck[] }).checks;
    expect(checks.find((c) => c.area === 'telegram')).toMatchObject({ status: 'ok', detail: expect.stringContaining('@parley_test_bot') });
    expect(checks.find((c) => c.area === 'model')).toMatchObject({ status: 'problem', detail: 'not reachable: ECONNREFUSED' });
    expect(result.stdout).not.toContain(tg.token);
  });

  it('prints the version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await parley(['--version'], {}, ROOT);
    expect(result).toEqual({ code: 0, stdout: `${version}\n` });
  });
});
