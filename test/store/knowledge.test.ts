// The knowledge repository, the same suite on SQLite and on PostgreSQL: revisions written with
// their page, conditional updates, conflicts, concurrent writers of one slug, batches (an
// import's), dry runs, CJK text, dates and the index's change feed.
import { describe, expect, it } from 'vitest';
import type { KnowledgePageFields } from '../../src/store/repos/knowledge.ts';
import { backends, storeFor } from './backends.ts';

const page = (slug: string, content: string, extra: Partial<KnowledgePageFields> = {}): KnowledgePageFields => ({
  slug,
  title: `Title of ${slug}`,
  summary: 'A summary.',
  content,
  tags: ['ops'],
  references: [],
  ...extra,
});

describe.each(backends())('knowledge pages on $name', (backend) => {
  const store = storeFor(backend);
  const kn = () => store().knowledge;

  it('creates, updates and leaves alone, each change with its revision, in order', async () => {
    const before = Date.now();
    const created = await kn().save(page('a/one', 'first'), { source: 'cli', author: 'alice' });
    expect(created).toMatchObject({ status: 'created', page: { slug: 'a/one', revision: 1, source: 'cli', tags: ['ops'] } });
    expect(created.page!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(created.page!.updatedAt.getTime()).toBe(created.page!.createdAt.getTime());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await kn().save(page('a/one', 'second', { tags: ['ops', 'db'], references: ['https://example.com'] }), {
      source: 'bot',
      note: 'why',
    });
    expect(updated).toMatchObject({ status: 'updated', page: { revision: 2, source: 'bot', content: 'second', tags: ['ops', 'db'] } });
    expect(updated.page!.createdAt).toEqual(created.page!.createdAt);
    expect(updated.page!.updatedAt.getTime()).toBeGreaterThan(created.page!.updatedAt.getTime());
    expect(
      await kn().save(page('a/one', 'second', { tags: ['ops', 'db'], references: ['https://example.com'] }), { source: 'cli' }),
    ).toEqual({
      status: 'unchanged',
      page: updated.page,
    });
    expect(await kn().get('a/one')).toEqual(updated.page);
    const history = await kn().history('a/one');
    expect(history!.map((r) => [r.revision, r.content, r.source, r.author, r.note, r.tags])).toEqual([
      [2, 'second', 'bot', undefined, 'why', ['ops', 'db']],
      [1, 'first', 'cli', 'alice', undefined, ['ops']],
    ]);
    expect(history![0]!.hash).toBe(updated.page!.hash);
    expect(await kn().revision('a/one', 1)).toEqual(history![1]);
    expect(await kn().revision('a/one', 3)).toBeUndefined();
    expect(await kn().history('a/none')).toBeUndefined();
  });

  it('refuses a write on an outdated revision, and a dry run writes nothing', async () => {
    await kn().save(page('b/one', 'one'), { source: 'cli' });
    expect(await kn().save(page('b/one', 'two'), { source: 'cli', expectedRevision: 0 })).toMatchObject({
      status: 'conflict',
      page: { revision: 1, content: 'one' },
    });
    expect(await kn().save(page('b/new', 'x'), { source: 'cli', expectedRevision: 1 })).toEqual({ status: 'conflict', page: undefined });
    expect(await kn().save(page('b/one', 'two'), { source: 'cli', dryRun: true })).toMatchObject({
      status: 'updated',
      page: { revision: 2, content: 'two' },
    });
    expect(await kn().save(page('b/dry', 'x'), { source: 'cli', dryRun: true })).toMatchObject({
      status: 'created',
      page: { revision: 1 },
    });
    expect(await kn().get('b/dry')).toBeUndefined();
    expect((await kn().get('b/one'))!.content).toBe('one');
    expect(await kn().save(page('b/one', 'two'), { source: 'cli', expectedRevision: 1 })).toMatchObject({ status: 'updated' });
    expect(await kn().history('b/one')).toHaveLength(2);
  });

  it('lets exactly one of concurrent writers of a new slug create it; the others update or leave it', async () => {
    const results = await Promise.all(['x', 'y', 'z', 'x'].map((content) => kn().save(page('c/race', content), { source: 'cli' })));
    expect(results.filter((r) => r.status === 'created')).toHaveLength(1);
    const final = (await kn().get('c/race'))!;
    const history = (await kn().history('c/race'))!;
    expect(history).toHaveLength(final.revision);
    expect(history[0]!.content).toBe(final.content);
    // Two writers that both read revision 1: one wins, the other is told.
    const both = await Promise.all(
      ['p', 'q'].map((content) => kn().save(page('c/race', content), { source: 'cli', expectedRevision: final.revision })),
    );
    expect(both.map((r) => r.status).sort()).toEqual(['conflict', 'updated']);
  });

  it('saves a batch as one by one would: created, unchanged, updated, own notes, duplicates in it', async () => {
    await kn().save(page('d/old', 'old'), { source: 'cli' });
    await kn().save(page('d/same', 'same'), { source: 'cli' });
    const results = await kn().saveMany(
      [page('d/new', 'new'), page('d/same', 'same'), page('d/old', 'changed'), page('d/twice', 'one'), page('d/twice', 'two')],
      { source: 'import', author: 'ci', note: 'batch' },
    );
    expect(results.map((r) => [r.page?.slug, r.status, r.page?.revision])).toEqual([
      ['d/new', 'created', 1],
      ['d/same', 'unchanged', 1],
      ['d/old', 'updated', 2],
      ['d/twice', 'created', 1],
      ['d/twice', 'updated', 2],
    ]);
    expect(await kn().get('d/twice')).toEqual(results[4]!.page);
    expect((await kn().history('d/twice'))!.map((r) => [r.revision, r.content, r.note, r.author])).toEqual([
      [2, 'two', 'batch', 'ci'],
      [1, 'one', 'batch', 'ci'],
    ]);
    const noted = await kn().saveMany([{ ...page('d/file', 'f'), note: 'from a.md' }, page('d/plain', 'p')], {
      source: 'import',
      note: 'default',
    });
    expect(noted.map((r) => r.status)).toEqual(['created', 'created']);
    expect((await kn().history('d/file'))![0]!.note).toBe('from a.md');
    expect((await kn().history('d/plain'))![0]!.note).toBe('default');
    const dry = await kn().saveMany([page('d/ghost', 'g'), page('d/new', 'new again')], { source: 'import', dryRun: true });
    expect(dry.map((r) => [r.status, r.page?.revision])).toEqual([
      ['created', 1],
      ['updated', 2],
    ]);
    expect(await kn().get('d/ghost')).toBeUndefined();
    expect((await kn().get('d/new'))!.content).toBe('new');
    expect(await kn().saveMany([], { source: 'import' })).toEqual([]);
  });

  it('keeps CJK text, emoji and long pages as they were written', async () => {
    const content = `${'机器人在群聊里回答问题。'.repeat(2_000)} 😀 ＡＢＣ テスト`;
    const saved = await kn().saveMany([page('e/中文', content, { title: '中文标题', tags: ['标签', 'ops'] })], { source: 'import' });
    expect(saved[0]!.status).toBe('created');
    const read = (await kn().get('e/中文'))!;
    expect(read).toMatchObject({ content, title: '中文标题', tags: ['标签', 'ops'] });
    expect(await kn().getByIds([read.id, 'missing'])).toEqual([read]);
    expect((await kn().list({ tag: '标签' })).map((p) => p.slug)).toEqual(['e/中文']);
  });

  it('keeps a lone surrogate as the database does (U+FFFD), and finds the page again by it', async () => {
    // The CLI and the bot's tool refuse such text (src/knowledge/page.ts); the repository still
    // answers with what it stored, and saving the same input again changes nothing.
    const lone = page('g/lone\uD800', 'text \uDC00 here', { tags: ['t\uD800'] });
    const [first] = await kn().saveMany([lone, page('g/plain', 'plain')], { source: 'import' });
    expect(first).toMatchObject({ status: 'created', page: { slug: 'g/lone\uFFFD', content: 'text \uFFFD here', tags: ['t\uFFFD'] } });
    expect(await kn().get('g/lone\uD800')).toEqual(first!.page);
    expect((await kn().save(lone, { source: 'cli' })).status).toBe('unchanged');
    expect((await kn().saveMany([lone], { source: 'import' }))[0]!.status).toBe('unchanged');
  });

  it('lists in slug order by tag and prefix, and feeds the index what changed', async () => {
    const start = await kn().stamp();
    await kn().saveMany([page('f/b', 'b', { tags: ['x'] }), page('f/a', 'a', { tags: ['y'] }), page('f/c', 'c', { tags: ['x', 'y'] })], {
      source: 'import',
    });
    expect((await kn().list({ prefix: 'f/' })).map((p) => p.slug)).toEqual(['f/a', 'f/b', 'f/c']);
    expect((await kn().list({ prefix: 'f/', tag: 'x' })).map((p) => p.slug)).toEqual(['f/b', 'f/c']);
    expect((await kn().list({ prefix: 'f/', limit: 1, offset: 1 })).map((p) => p.slug)).toEqual(['f/b']);
    const stamp = await kn().stamp();
    expect(stamp.pages).toBe(start.pages + 3);
    expect(stamp.lastRevisionId).toBeGreaterThan(start.lastRevisionId);
    const changed = await kn().changedSince(start.lastRevisionId);
    expect(changed.lastRevisionId).toBe(stamp.lastRevisionId);
    const ids = new Set((await kn().list({ prefix: 'f/' })).map((p) => p.id));
    expect(new Set(changed.pageIds)).toEqual(ids);
    expect(await kn().count()).toBe(stamp.pages);
    const versions = await kn().versions();
    for (const id of ids) expect(versions.get(id)).toBe(1);
    const first = (await kn().batchAfter('', 2)).map((p) => p.id);
    expect(first).toEqual([...first].sort());
    expect((await kn().batchAfter(first[1]!, 1_000)).every((p) => p.id > first[1]!)).toBe(true);
    expect(await kn().remove('f/a')).toBe(true);
    expect(await kn().remove('f/a')).toBe(false);
    expect(await kn().history('f/a')).toBeUndefined();
  });
});
