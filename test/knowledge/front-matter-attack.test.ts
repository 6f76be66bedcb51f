// Defect 1: front matter opened with `---js` (or `---javascript`) was run as JavaScript by
// gray-matter, in `knowledge add` and `knowledge import`. Run the real CLI in a child process on
// such files and check that it refuses them by name and that the payload never ran.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { knowledgeTempDir, removeTempDirs, runParley } from './helpers.ts';

afterAll(removeTempDirs);

const OPENINGS = { js: '---js', javascript: '---javascript', 'space-js': '--- js', coffee: '---coffee', JS: '---JS ' } as const;

let dir: string;
let dbFile: string;
beforeEach(() => {
  dir = knowledgeTempDir('parley-attack-');
  dbFile = join(dir, 'parley.db');
});

/** A page whose front matter, if evaluated, creates `marker` (CoffeeScript would run the same line). */
function evilPage(opening: string, marker: string): string {
  return `${opening}\n{ title: require('fs').writeFileSync(${JSON.stringify(marker)}, 'x') || 'Owned' }\n---\n# Harmless\n\nText.\n`;
}

function plant(): { file: string; marker: string }[] {
  return Object.entries(OPENINGS).map(([name, opening]) => {
    const file = `evil-${name}.md`;
    const marker = join(dir, `pwned-${name}`);
    writeFileSync(join(dir, file), evilPage(opening, marker));
    return { file, marker };
  });
}

async function storedSlugs(): Promise<string[]> {
  const listed = await runParley(['knowledge', 'list', '--json'], { cwd: dir, dbFile });
  expect(listed.code, listed.err).toBe(0);
  return (JSON.parse(listed.out) as { slug: string }[]).map((p) => p.slug);
}

describe('front matter in a language other than YAML', () => {
  it('knowledge add refuses each file by name with exit 2 and runs nothing', async () => {
    for (const { file, marker } of plant()) {
      const run = await runParley(['knowledge', 'add', file, '--slug', 'x'], { cwd: dir, dbFile });
      expect(run.code, `${file}: ${run.err}`).toBe(2);
      expect(run.err).toMatch(new RegExp(`^parley: ${file.replace('.', '\\.')}: front matter in "[a-zA-Z]+" is not allowed`));
      expect(run.err.trimEnd().split('\n')).toHaveLength(1);
      expect(existsSync(marker), `${file} ran its front matter`).toBe(false);
    }
    expect(await storedSlugs()).toEqual([]);
  }, 60_000);

  it('knowledge add - refuses it on standard input', async () => {
    const marker = join(dir, 'pwned-stdin');
    const run = await runParley(['knowledge', 'add', '-', '--slug', 'x'], {
      cwd: dir,
      dbFile,
      stdin: Buffer.from(evilPage('---js', marker)),
    });
    expect(run.code, run.err).toBe(2);
    expect(run.err).toBe(
      'parley: standard input: front matter in "js" is not allowed: only YAML (or JSON) is read, and nothing in a page is run\n',
    );
    expect(existsSync(marker)).toBe(false);
  });

  it('knowledge import reports every such file by name, imports the rest, exits 2 and runs nothing', async () => {
    const planted = plant();
    writeFileSync(join(dir, 'good.md'), '---\ntitle: Good\n---\nFine.\n');
    const run = await runParley(['knowledge', 'import', '.'], { cwd: dir, dbFile });
    expect(run.code, run.out + run.err).toBe(2);
    for (const { file, marker } of planted) {
      expect(run.err).toContain(file);
      expect(run.out).toMatch(new RegExp(`${file.replace('.', '\\.')}.*front matter in "[a-zA-Z]+" is not allowed`));
      expect(existsSync(marker), `${file} ran its front matter`).toBe(false);
    }
    expect(run.err.trimEnd().split('\n')).toHaveLength(1);
    expect(await storedSlugs()).toEqual(['good']);
  }, 60_000);
});
