// Defect 11: `knowledge export` followed symbolic links planted in the target folder and wrote
// outside it. Run the real CLI on a target holding a file link, a folder link (for nested slugs
// like en/plugins/x) and a hard link, and check nothing outside changed.
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { cliFor, knowledgeTempDir, removeTempDirs, runParley } from './helpers.ts';

afterAll(removeTempDirs);

let dir: string;
let dbFile: string;
let outside: string;

beforeEach(async () => {
  dir = knowledgeTempDir('parley-export-links-');
  dbFile = join(dir, 'parley.db');
  outside = join(dir, 'outside');
  mkdirSync(outside);
  mkdirSync(join(dir, 'out'));
  const cli = cliFor(dbFile, dir);
  for (const slug of ['en/plugins/x', 'top']) {
    expect((await cli(['knowledge', 'add', '--slug', slug, '--title', `Page ${slug}`, '--content', 'Exported text.'])).code).toBe(0);
  }
});

const exportTo = (target: string) => runParley(['knowledge', 'export', target], { cwd: dir, dbFile });

describe('knowledge export into a folder with planted links', () => {
  it('refuses a file link, naming it, and leaves its target alone (existing or not)', async () => {
    writeFileSync(join(outside, 'victim'), 'original');
    symlinkSync(join(outside, 'victim'), join(dir, 'out', 'top.md'));
    const run = await exportTo('out');
    expect(run.code, run.err).toBe(2);
    expect(run.err).toBe('parley: cannot export to out: out/top.md is a symbolic link (nothing is written through links)\n');
    expect(readFileSync(join(outside, 'victim'), 'utf8')).toBe('original');

    const dangling = join(dir, 'out2');
    mkdirSync(dangling);
    symlinkSync(join(outside, 'created-by-export'), join(dangling, 'top.md'));
    expect((await exportTo('out2')).code).toBe(2);
    expect(readdirSync(outside)).toEqual(['victim']);
  }, 60_000);

  it('refuses a linked sub-folder for nested slugs and creates nothing outside', async () => {
    symlinkSync(outside, join(dir, 'out', 'en'));
    const run = await exportTo('out');
    expect(run.code, run.err).toBe(2);
    expect(run.err).toBe('parley: cannot export to out: out/en is a symbolic link (nothing is written through links)\n');
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(outside, 'plugins'))).toBe(false);
  });

  it('replaces a hard-linked file instead of writing into the shared inode', async () => {
    writeFileSync(join(outside, 'shared'), 'original');
    linkSync(join(outside, 'shared'), join(dir, 'out', 'top.md'));
    const run = await exportTo('out');
    expect(run.code, run.err).toBe(0);
    expect(readFileSync(join(outside, 'shared'), 'utf8')).toBe('original');
    expect(readFileSync(join(dir, 'out', 'top.md'), 'utf8')).toContain('title: Page top');
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['en', 'top.md']); // no temporary files left
  });

  it('follows a target folder that is itself a link, because the person named it', async () => {
    const real = join(dir, 'real-target');
    mkdirSync(real);
    symlinkSync(real, join(dir, 'named-link'));
    const run = await exportTo('named-link');
    expect(run.code, run.err).toBe(0);
    expect(readFileSync(join(real, 'en', 'plugins', 'x.md'), 'utf8')).toContain('slug: en/plugins/x');
  });
});
