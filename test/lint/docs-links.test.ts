// The documentation a newcomer follows: README.md stays short, and every relative link in it and in
// docs/*.md leads to a file that exists, and to a heading that exists when it names one (GitHub's
// anchors: lower case, punctuation dropped, spaces as hyphens).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = join(ROOT, 'docs');
const PAGES = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(DOCS, f)),
];
/** Pages written on other branches of the same release; a link to one of them may wait for the merge. */
const WRITTEN_ELSEWHERE = new Set(
  ['multimodal.md', 'multimodal-platforms.md', 'build-your-own-bot.md', 'models.md', 'web-admin.md', 'configuration-locale.md'].map((f) =>
    join(DOCS, f),
  ),
);

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = !inCode && /^#{1,6} (.+)$/.exec(line)?.[1];
    if (heading)
      anchors.add(
        heading
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, '')
          .replace(/ /g, '-'),
      );
  }
  return anchors;
}

function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z]+:/i.test(href));
}

describe('the documentation', () => {
  it('keeps README.md within 200 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const href of linksOf(page)) {
        const [path, anchor] = href.split('#') as [string, string | undefined];
        const target = path ? join(dirname(page), path) : page;
        if (!existsSync(target)) {
          if (!WRITTEN_ELSEWHERE.has(target)) broken.push(`${relative(ROOT, page)}: ${href}`);
          continue;
        }
        if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor))
          broken.push(`${relative(ROOT, page)}: ${href} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
    expect(PAGES.length).toBeGreaterThan(10);
  });
});
