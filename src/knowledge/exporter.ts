// `parley knowledge export <dir>`: one Markdown file per page at <dir>/<slug>.md, with every field
// in the front matter so that `import` reads the same pages back. Files are written only inside
// <dir>, never through a link planted in it (safe-write.ts).
import type { KnowledgeBase } from './knowledge-base.ts';
import { renderPageFile } from './page-file.ts';
import { openRoot, writeInside } from './safe-write.ts';

export { UnsafePathError } from './safe-write.ts';

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
  const root = await openRoot(dir);
  const files: string[] = [];
  for await (const page of kb.allPages()) {
    const file = `${page.slug}.md`;
    await writeInside(root, file, renderPageFile(page));
    files.push(file);
    onProgress?.(files.length, total, file);
  }
  return { pages: files.length, files: files.sort() };
}
