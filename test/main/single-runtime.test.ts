// One bot process per SQLite file: a second `npm start` on the same database is refused at once,
// while the `parley` admin CLI keeps working next to the running bot.
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.ts';
import { killAll, runCli, startBot } from './bot-process.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  killAll();
  while (cleanups.length) cleanups.pop()!();
});

const IN_USE = /^parley: The database .*data\/parley\.db is in use by another Parley process\. .*PostgreSQL/;

describe('npm start: one process per SQLite database', () => {
  it('refuses a second process, keeps the first running, lets the CLI in, and starts again after kill -9', async () => {
    const dir = tempDir('parley-lock-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const first = startBot({ cwd: dir });
    await first.ready();

    const second = startBot({ cwd: dir });
    // No tight bound (a loaded machine starts Node slowly); it must end instead of running on.
    const refused = await Promise.race([second.exited, sleep(20_000).then(() => ({ running: second.stdout() }))]);
    if ('running' in refused) throw new Error(`the second process is running:\n${refused.running}`);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(IN_USE);
    expect(first.running()).toBe(true);

    // The admin's way in while the bot runs.
    const list = await runCli(['knowledge', 'list'], { cwd: dir });
    expect(list.code, list.stderr).toBe(0);
    const sessions = await runCli(['sessions', '--json'], { cwd: dir });
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(JSON.parse(sessions.stdout)).toEqual([]);
    expect(first.running()).toBe(true);

    // The operating system drops the lock with the process, however it ends.
    first.child.kill('SIGKILL');
    await first.exited;
    const third = startBot({ cwd: dir });
    await third.ready();
    third.child.kill('SIGINT');
    expect(await third.exited).toMatchObject({ code: 0, signal: null });
  }, 90_000);

  it('two bots on two different SQLite files both run', async () => {
    const dir = tempDir('parley-lock-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const a = startBot({ cwd: dir, env: { DATABASE_URL: 'file:./data/a.db' } });
    const b = startBot({ cwd: dir, env: { DATABASE_URL: 'file:./data/b.db' } });
    await Promise.all([a.ready(), b.ready()]);
    a.child.kill('SIGINT');
    b.child.kill('SIGINT');
    expect((await a.exited).code).toBe(0);
    expect((await b.exited).code).toBe(0);
  }, 60_000);
});
