// `parley doctor`'s database check reads the migration ledger without applying anything: a
// database that lacks migrations is a problem (with the command that fixes it), and stays as it was.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/harness.ts';
import { doctor } from './run.ts';

describe('parley doctor: the database', () => {
  it('names migrations not applied yet, and applies none', async () => {
    const cwd = tempDir('parley-doctor-db-');
    writeFileSync(join(cwd, 'parley.db'), ''); // an empty SQLite database
    const base = { cwd, env: { DATABASE_URL: `file:${join(cwd, 'parley.db')}`, PARLEY_LOG_LEVEL: 'silent' } };
    const first = await doctor(base, {});
    expect(first.code).toBe(1);
    expect(first.find('database')).toMatchObject({
      status: 'problem',
      detail: expect.stringMatching(/^reachable; \d+ migration\(s\) not applied: 0001_/),
      fix: 'Run `parley db migrate` (npm start applies them too).',
    });
    expect((await doctor(base, {})).find('database')?.detail).toBe(first.find('database')?.detail);
  });
});
