// The grammY corpus (en + zh) end to end: import, re-import, export/import round trip, and
// retrieval in both languages. The corpus is imported once for the whole file.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportPages } from '../../src/knowledge/exporter.ts';
import { importPages, markdownFiles, type ImportReport } from '../../src/knowledge/importer.ts';
import { CORPUS_DIR, knowledgeTempDir, openKnowledge, removeTempDirs, type TestKnowledge } from './helpers.ts';

afterAll(removeTempDirs);

let base: TestKnowledge;
let first: ImportReport;
let files: string[];

beforeAll(async () => {
  base = await openKnowledge();
  files = await markdownFiles(CORPUS_DIR);
  first = await importPages(base.kb, CORPUS_DIR);
});
afterAll(() => base.close());

async function allPages(knowledge: TestKnowledge) {
  const pages = [];
  for await (const page of knowledge.kb.allPages()) pages.push(page);
  return pages.sort((a, b) => a.slug.localeCompare(b.slug));
}

describe('importing the grammY corpus', () => {
  it('imports every Markdown file, English and Chinese, with a title and a summary', async () => {
    expect(files.length).toBeGreaterThan(100);
    expect(first.counts).toEqual({ created: files.length, updated: 0, unchanged: 0, failed: 0 });
    const pages = await allPages(base);
    expect(pages).toHaveLength(files.length);
    expect(pages.filter((p) => p.slug.startsWith('en/')).length).toBeGreaterThan(60);
    expect(pages.filter((p) => p.slug.startsWith('zh/')).length).toBeGreaterThan(60);
    for (const page of pages) {
      expect(page.title, page.slug).not.toBe('');
      expect(page.summary, page.slug).not.toBe('');
      expect(page.revision).toBe(1);
      expect(page.source).toBe('import');
    }
  });

  it('takes the title from the first heading, the summary from the first paragraph and the slug from the path', async () => {
    const page = (await base.kb.get('en/plugins/keyboard'))!;
    expect(page.title).toBe('Inline and Custom Keyboards (built-in)');
    expect(page.summary).toMatch(/^Your bot may send a number of buttons, either to be displayed underneath a message/);
    const raw = readFileSync(join(CORPUS_DIR, 'en/plugins/keyboard.md'), 'utf8');
    expect(raw).toContain(page.content.split('\n')[0]!);
    expect((await base.kb.get('zh/plugins/keyboard'))!.title).toBe('Inline 与自定义 Keyboards（内置）');
  });

  it('reports everything unchanged when the same folder is imported again', async () => {
    const again = await importPages(base.kb, CORPUS_DIR);
    expect(again.counts).toEqual({ created: 0, updated: 0, unchanged: files.length, failed: 0 });
    expect((await base.kb.history('en/plugins/keyboard'))!).toHaveLength(1);
  });

  it('exports Markdown with front matter that imports into an empty database as identical pages', async () => {
    const out = knowledgeTempDir('parley-export-');
    const exported = await exportPages(base.kb, out);
    expect(exported.pages).toBe(files.length);
    expect(readdirSync(join(out, 'zh', 'plugins'))).toContain('keyboard.md');
    expect(readFileSync(join(out, 'en', 'plugins', 'keyboard.md'), 'utf8')).toMatch(/^---\nslug: en\/plugins\/keyboard\ntitle: /);

    const copy = await openKnowledge();
    try {
      const reimported = await importPages(copy.kb, out);
      expect(reimported.counts).toEqual({ created: files.length, updated: 0, unchanged: 0, failed: 0 });
      const fields = (p: Awaited<ReturnType<typeof allPages>>[number]) => ({
        slug: p.slug,
        title: p.title,
        summary: p.summary,
        content: p.content,
        tags: p.tags,
        references: p.references,
        hash: p.hash,
      });
      expect((await allPages(copy)).map(fields)).toEqual((await allPages(base)).map(fields));
      // And importing the export over the original changes nothing either.
      expect((await importPages(base.kb, out)).counts.unchanged).toBe(files.length);
    } finally {
      await copy.close();
    }
  });
});

describe('retrieval over the bilingual corpus', () => {
  it('ranks the Chinese keyboard page first for the Chinese question', async () => {
    const { hits } = await base.kb.search('如何在消息下面添加可以点击的按钮');
    expect(hits[0]).toMatchObject({ slug: 'zh/plugins/keyboard', title: 'Inline 与自定义 Keyboards（内置）' });
    expect(hits[0]!.section).not.toBe('');
    expect(hits[0]!.snippet).toMatch(/按钮/);
  });

  it('ranks the English keyboard page first for the English question', async () => {
    const { hits, terms } = await base.kb.search('send a message with buttons under it');
    expect(terms).toEqual(['send', 'messag', 'button', 'under']);
    expect(hits[0]!.slug).toBe('en/plugins/keyboard');
    expect(hits.every((h) => h.score > 0)).toBe(true);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });

  it('finds Chinese pages through words the segmenter would split and English identifiers in Chinese text', async () => {
    const { hits } = await base.kb.search('中间件 next() 是怎么工作的', { limit: 3 });
    expect(hits.map((h) => h.slug)).toContain('zh/guide/middleware');
    const byIdentifier = await base.kb.search('InlineKeyboard', { limit: 3 });
    expect(byIdentifier.hits.map((h) => h.slug).sort()).toContain('en/plugins/keyboard');
  });

  it('explains a score field by field', async () => {
    const { hits } = await base.kb.explain('send a message with buttons under it', { limit: 2 });
    const top = hits[0]!;
    expect(top.slug).toBe('en/plugins/keyboard');
    expect(top.score).toBeCloseTo(top.sectionScore + top.nextSectionScore / 2, 1);
    expect(top.fields.summary).toBeGreaterThan(0);
    expect(top.fields.content).toBeGreaterThan(0);
    expect(top.fields.title).toBe(0);
  });

  it('gives the automatic context the best sections of pages above the threshold, and nothing below it', async () => {
    const sections = await base.kb.relevantSections('send a message with buttons under it', { limit: 3, minScore: 12 });
    expect(sections[0]!.slug).toBe('en/plugins/keyboard');
    const page = (await base.kb.get('en/plugins/keyboard'))!;
    expect(page.content).toContain(sections[0]!.markdown);
    expect(await base.kb.relevantSections('what is the weather like in Berlin tomorrow?', { limit: 3, minScore: 12 })).toEqual([]);
  });
});
