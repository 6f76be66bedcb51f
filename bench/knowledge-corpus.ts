// The grammY corpus for the knowledge benchmark (generated pages for scale runs: knowledge-generator.ts).
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markdownFiles } from '../src/knowledge/importer.ts';
import { pageFromFile } from '../src/knowledge/page-file.ts';
import type { KnowledgePageRecord } from '../src/store/repos/knowledge.ts';

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'corpora', 'grammy-docs');

export async function loadCorpus(): Promise<KnowledgePageRecord[]> {
  const files = await markdownFiles(CORPUS_DIR);
  const now = new Date();
  return Promise.all(
    files.map(async (file, i) => {
      const rel = relative(CORPUS_DIR, file).split('\\').join('/');
      const page = pageFromFile(await readFile(file, 'utf8'), rel);
      return { ...page, id: `p${String(i).padStart(7, '0')}`, source: 'import', revision: 1, hash: '', createdAt: now, updatedAt: now };
    }),
  );
}
