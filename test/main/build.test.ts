// bin/ runs the compiled dist/, never stale code: in a copy of the project (sources, bin/, scripts/,
// the installed node_modules linked in), parley builds a missing dist/, rebuilds it after a source
// changed, leaves it alone otherwise, and says in one line when the sources do not compile.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const COPIED = [
  'bin',
  'scripts',
  'src',
  'adapters',
  'prisma/migrations',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.types.json',
  'package.json',
];

function projectCopy(): string {
  const dir = tempDir('parley-build-');
  for (const path of COPIED) cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

function parley(dir: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [join(dir, 'bin', 'parley.mjs'), ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, DATABASE_URL: `file:${join(dir, 'parley.db')}` },
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Rewrites a source file with a modification time safely after the last build's stamp. */
function edit(file: string, change: (text: string) => string): void {
  writeFileSync(file, change(readFileSync(file, 'utf8')));
  const later = new Date(Date.now() + 5_000);
  utimesSync(file, later, later);
}

describe('dist/ and the sources', () => {
  it('builds a missing dist/, rebuilds after an edit, and otherwise runs it as it is', () => {
    const dir = projectCopy();
    const stamp = join(dir, 'dist', '.build-stamp.json');
    expect(existsSync(join(dir, 'dist'))).toBe(false);

    const first = parley(dir, '--help');
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain('Parley admin CLI: knowledge pages');
    expect(existsSync(stamp)).toBe(true);

    const builtAt = statSync(stamp).mtimeMs;
    expect(parley(dir, '--help').code).toBe(0);
    expect(statSync(stamp).mtimeMs).toBe(builtAt);

    edit(join(dir, 'src', 'cli', 'program.ts'), (text) => text.replace('Parley admin CLI:', 'Edited admin CLI:'));
    const edited = parley(dir, '--help');
    expect(edited).toMatchObject({ code: 0, stderr: '' });
    expect(edited.stdout).toContain('Edited admin CLI: knowledge pages');

    // A new file counts too, even with an old modification time.
    writeFileSync(join(dir, 'src', 'added.ts'), 'export const added = 1;\n');
    utimesSync(join(dir, 'src', 'added.ts'), new Date(0), new Date(0));
    expect(parley(dir, '--help').code).toBe(0);
    expect(existsSync(join(dir, 'dist', 'src', 'added.js'))).toBe(true);
  }, 120_000); // three builds of the whole project

  it('sources that do not compile: one line saying what to run, exit 1, the last good dist/ kept', () => {
    const dir = projectCopy();
    expect(parley(dir, '--help').code).toBe(0);
    edit(join(dir, 'src', 'cli', 'program.ts'), (text) => `${text}\nconst = ;\n`);
    const broken = parley(dir, '--help');
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toMatch(/^parley: could not build dist\/ \(.*\); run `npm run build` and try again\.$/m);
    expect(existsSync(join(dir, 'dist', 'src', 'cli', 'program.js'))).toBe(true);
  }, 120_000);
});
