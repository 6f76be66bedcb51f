// `parley knowledge edit <slug>` without flags opens an editor: without $EDITOR and without a
// terminal (a script, a pipe) it refuses instead of starting vi on a pipe; with $EDITOR set it
// runs that editor, terminal or not.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.ts';
import { tempDir } from '../helpers/harness.ts';

let dir: string;
let bin: string;

function parley(argv: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const io = {
    out: (t: string) => (out += t),
    err: (t: string) => (err += t),
    isTTY: false,
    terminal: false,
    // A `vi` that only says it ran (and leaves the page as it is).
    env: { PATH: `${bin}:${process.env.PATH}`, DATABASE_URL: `file:${join(dir, 'parley.db')}`, PARLEY_LOG_LEVEL: 'silent', ...env },
    cwd: dir,
  };
  return runCli(argv, io).then((code) => ({ code, out, err }));
}

beforeAll(async () => {
  dir = tempDir('parley-edit-');
  bin = join(dir, 'bin');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(bin);
  writeFileSync(join(bin, 'vi'), `#!/bin/sh\ntouch "${join(dir, 'vi-ran')}"\n`);
  chmodSync(join(bin, 'vi'), 0o755);
  const added = await parley(['knowledge', 'add', '--slug', 'faq/hours', '--title', 'Hours', '--content', 'Open 9 to 5.'], {});
  expect(added.code, added.err).toBe(0);
});

describe('parley knowledge edit without a terminal', () => {
  it('refuses without $EDITOR, and starts no editor', async () => {
    const run = await parley(['knowledge', 'edit', 'faq/hours'], { EDITOR: '', VISUAL: '' });
    expect(run.code).toBe(2);
    expect(run.err).toContain('no terminal to edit in, and no $EDITOR: set EDITOR');
    expect(existsSync(join(dir, 'vi-ran'))).toBe(false);
  });

  it('runs $EDITOR when it is set', async () => {
    const run = await parley(['knowledge', 'edit', 'faq/hours'], { EDITOR: 'true', VISUAL: '' });
    expect(run).toMatchObject({ code: 0, out: 'Unchanged: faq/hours already has this content (revision 1).\n' });
  });
});
