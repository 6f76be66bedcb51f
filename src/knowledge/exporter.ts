// `parley knowledge export <dir>`: one Markdown file per page at <dir>/<slug>.md, with every field
// in the front matter so that `import` reads the same pages back.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { KnowledgeBase } from './knowledge-base.ts';
import { renderPageFile } from './page-file.ts';

export interface ExportReport {
  pages: number;
  files: string[];
}

export async function exportPages(
  kb: KnowledgeBase,
  dir: string,
  onProgress?: (done: number, total: number, file: string) => void,
): Promise<ExportReport> {
  const total = await kb.count();
  const files: string[] = [];
  // Slugs are validated (no "..", no leading "/"), so every file stays inside `dir`.
  for await (const page of kb.allPages()) {
    const file = `${page.slug}.md`;
    const path = join(dir, file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, renderPageFile(page));
    files.push(file);
    onProgress?.(files.length, total, file);
  }
  return { pages: files.length, files: files.sort() };
}
