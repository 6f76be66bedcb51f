// Optional semantic search against the fake model server's /embeddings: off by default, vectors
// computed in batches after writes and reused, fused with the keyword ranking, and keyword search
// carrying on alone when the embeddings server fails.
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { KnowledgeBase } from '../../src/knowledge/knowledge-base.ts';
import { parsePageInput } from '../../src/knowledge/page-file.ts';
import { embeddingSettings } from '../../src/knowledge/search/embedder.ts';
import { EMBEDDING_BATCH, fuse } from '../../src/knowledge/search/semantic.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { cliFor, knowledgeTempDir, openKnowledge, removeTempDirs, writeFiles, type TestKnowledge } from './helpers.ts';

// A stand-in for a multilingual embedding model: one dimension per concept, whatever the words.
const CONCEPTS = [
  ['keyboard', 'button', 'tappable', 'tap', 'choice', '按钮', '键盘', '点击'],
  ['session', 'remember', 'storage', 'store', 'each user', '记住', '会话', '保存'],
  ['deploy', 'server', 'hosting', 'always on', '部署', '服务器'],
  ['error', 'crash', 'exception', '错误', '崩溃'],
];
function conceptVector(text: string): number[] {
  const lower = text.toLowerCase();
  return [0.05, ...CONCEPTS.map((words) => words.filter((w) => lower.includes(w)).length)];
}

const PAGES = [
  { slug: 'ui/keyboards', title: 'Inline keyboards', content: 'Show a row of buttons below a message; a press sends a callback query.' },
  { slug: 'data/sessions', title: 'Sessions', content: 'Session storage keeps data per chat between updates.' },
  { slug: 'ops/hosting', title: 'Hosting', content: 'Deploy the bot on a server with a process manager.' },
  { slug: 'dev/errors', title: 'Errors', content: 'Catch an error thrown in middleware with bot.catch.' },
];

let model: FakeModelServer;
beforeAll(async () => {
  model = await FakeModelServer.start();
  model.setEmbedder(conceptVector);
});
afterAll(async () => {
  await model.close();
  removeTempDirs();
});

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  model.failEmbeddings(undefined);
  model.embeddingRequests.length = 0;
  while (opened.length) await opened.pop()!.close();
});

async function withEmbeddings(
  dir = knowledgeTempDir(),
  log = pino({ level: 'silent' }),
): Promise<TestKnowledge & { semantic: KnowledgeBase }> {
  const base = await openKnowledge(dir);
  const semantic = new KnowledgeBase({
    repo: base.store.knowledge,
    indexFile: `${base.dbFile}.semantic-index.db`,
    log,
    embeddings: { model: 'fake-embedding', baseUrl: model.url, apiKey: 'sk-test-secret', timeoutMs: 5_000 },
  });
  const knowledge = {
    ...base,
    semantic,
    async close() {
      await semantic.close();
      await base.close();
    },
  };
  opened.push(knowledge);
  return knowledge;
}

async function savePages(kb: KnowledgeBase): Promise<void> {
  await kb.saveMany(
    PAGES.map((p) => parsePageInput(p)),
    { source: 'import' },
  );
}

describe('reciprocal rank fusion', () => {
  it("adds 1/(60 + rank) from each ranking: agreement beats one list's first place; ties go to the keyword ranking", () => {
    // b: 1/62 + 1/61; a: 1/61; d: 1/62; c: 1/63.
    expect(fuse(['a', 'b', 'c'], ['b', 'd'])).toEqual(['b', 'a', 'd', 'c']);
    // x and y score the same (1/61 each): the keyword ranking decides.
    expect(fuse(['x'], ['y'])).toEqual(['x', 'y']);
    expect(fuse(['y'], ['x'])).toEqual(['y', 'x']);
    // Without semantic results the keyword ranking is the answer, unchanged.
    expect(fuse(['c', 'a', 'b'], [])).toEqual(['c', 'a', 'b']);
  });
});

describe('semantic search', () => {
  it('is off by default: no setting, no embeddings request', async () => {
    expect(embeddingSettings(loadConfig({}))).toBeUndefined();
    expect(embeddingSettings(loadConfig({ OPENAI_EMBEDDING_MODEL: 'text-embedding-3-small', OPENAI_BASE_URL: model.url }))).toMatchObject({
      model: 'text-embedding-3-small',
      baseUrl: model.url,
    });
    const knowledge = await openKnowledge();
    opened.push(knowledge);
    await savePages(knowledge.kb);
    const result = await knowledge.kb.search('big tappable answer options instead of typing');
    expect(result.semantic).toBe(false);
    expect(model.embeddingRequests).toEqual([]);
  });

  it('finds a page by meaning when no word is shared, and across languages', async () => {
    const { kb, semantic } = await withEmbeddings();
    await savePages(semantic);
    await semantic.embedPending();
    const question = 'big tappable answer options instead of typing';
    expect((await kb.search(question)).hits.map((h) => h.slug)).not.toContain('ui/keyboards');
    const found = await semantic.search(question);
    expect(found.semantic).toBe(true);
    expect(found.hits[0]).toMatchObject({ slug: 'ui/keyboards', score: 0 });
    expect(found.hits[0]!.semantic).toBeGreaterThan(0.9);
    expect((await semantic.search('让机器人记住每个人的设置')).hits[0]!.slug).toBe('data/sessions');
    // A keyword match and a meaning match on the same page put it first.
    expect((await semantic.search('catch the error before the bot crashes')).hits[0]!.slug).toBe('dev/errors');
  });

  it('embeds pages in batches after writes, reuses vectors of unchanged text, and re-embeds only what changed', async () => {
    const { semantic } = await withEmbeddings();
    const many = Array.from({ length: 2 * EMBEDDING_BATCH + 2 }, (_, i) =>
      parsePageInput({ slug: `bulk/${i}`, title: `Page ${i}`, content: `Storage note number ${i}.` }),
    );
    await semantic.saveMany(many, { source: 'import' });
    const report = await semantic.embedPending();
    expect(report).toEqual({ embedded: 0, missing: 0 }); // the background run after the write did it all
    const sizes = model.embeddingRequests.map((r) => r.input.length);
    expect(sizes).toEqual([EMBEDDING_BATCH, EMBEDDING_BATCH, 2]);
    expect(model.embeddingRequests.every((r) => r.model === 'fake-embedding')).toBe(true);

    model.embeddingRequests.length = 0;
    await semantic.rebuild();
    expect(await semantic.embedPending()).toEqual({ embedded: 0, missing: 0 });
    expect(model.embeddingRequests).toEqual([]);

    await semantic.save(parsePageInput({ slug: 'bulk/7', title: 'Page 7', content: 'Changed: keyboard buttons.' }), { source: 'cli' });
    await semantic.embedPending();
    expect(model.embeddingRequests.flatMap((r) => r.input)).toEqual([expect.stringContaining('Changed: keyboard buttons.')]);
  });

  it('keeps answering with keyword search when the embeddings server fails, and says so once in the log', async () => {
    const lines: string[] = [];
    const log = pino(
      { level: 'warn' },
      new Writable({
        write: (chunk, _e, done) => {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const { semantic } = await withEmbeddings(knowledgeTempDir(), log);
    model.failEmbeddings(500);
    await savePages(semantic);
    await semantic.embedPending().catch(() => undefined);
    const first = await semantic.search('session storage');
    expect(first.semantic).toBe(false);
    expect(first.hits[0]!.slug).toBe('data/sessions');
    await semantic.search('deploy on a server');
    const warnings = lines.filter((line) => line.includes('semantic search unavailable'));
    expect(warnings).toHaveLength(1);
    expect(lines.join('\n')).not.toContain('sk-test-secret');

    // Once the server is back, the vectors are computed and meaning counts again.
    model.failEmbeddings(undefined);
    await semantic.embedPending();
    expect((await semantic.search('big tappable answer options instead of typing')).hits[0]!.slug).toBe('ui/keyboards');
  });
});

describe('semantic search through parley knowledge', () => {
  it('import embeds the new pages in batches before it ends, re-embeds only an edited file, and a failing endpoint fails neither import nor search', async () => {
    const dir = knowledgeTempDir();
    const cli = cliFor(join(dir, 'parley.db'), dir, {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_EMBEDDING_MODEL: 'fake-embedding',
    });
    const files: Record<string, string> = {};
    for (let i = 0; i < EMBEDDING_BATCH + 3; i++) files[`docs/notes/${i}.md`] = `# Note ${i}\n\nStorage note number ${i}.\n`;
    for (const page of PAGES) files[`docs/${page.slug}.md`] = `# ${page.title}\n\n${page.content}\n`;
    writeFiles(dir, files);

    const first = await cli(['knowledge', 'import', 'docs']);
    expect(first.code, first.err).toBe(0);
    expect(model.embeddingRequests.map((r) => r.input.length)).toEqual([EMBEDDING_BATCH, PAGES.length + 3]);

    // Unchanged files: nothing to embed. One edited file: its text alone.
    model.embeddingRequests.length = 0;
    expect((await cli(['knowledge', 'import', 'docs'])).code).toBe(0);
    expect(model.embeddingRequests).toEqual([]);
    writeFiles(dir, { 'docs/notes/5.md': '# Note 5\n\nChanged: keyboard buttons.\n' });
    expect((await cli(['knowledge', 'import', 'docs'])).code).toBe(0);
    expect(model.embeddingRequests.flatMap((r) => r.input)).toEqual([expect.stringContaining('Changed: keyboard buttons.')]);

    const found = await cli(['knowledge', 'search', 'big tappable answer options instead of typing', '--json']);
    expect(found.code, found.err).toBe(0);
    expect(found.out).toContain('ui/keyboards');

    // The endpoint fails: the import is written and says the vectors are pending; search answers by keywords.
    model.failEmbeddings(500);
    writeFiles(dir, { 'docs/notes/6.md': '# Note 6\n\nChanged again.\n' });
    const failing = await cli(['knowledge', 'import', 'docs']);
    expect(failing.code).toBe(0);
    expect(failing.out).toContain('updated 1');
    expect(failing.err).toContain('embeddings could not be computed');
    const keyword = await cli(['knowledge', 'search', 'session storage', '--json']);
    expect(keyword.code, keyword.err).toBe(0);
    expect(keyword.out).toContain('data/sessions');
  });
});
