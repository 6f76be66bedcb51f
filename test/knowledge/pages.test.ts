// Pages, revisions and revert, and the search index staying in step with every kind of write:
// this process's, another process's, and a lost or stale index file.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../../src/knowledge/knowledge-base.ts';
import { parsePageInput } from '../../src/knowledge/page-file.ts';
import { knowledgeTempDir, openKnowledge, removeTempDirs, type TestKnowledge } from './helpers.ts';

afterAll(removeTempDirs);

const opened: TestKnowledge[] = [];
afterEach(async () => {
  while (opened.length) await opened.pop()!.close();
});

async function fresh(dir?: string): Promise<TestKnowledge> {
  const knowledge = await openKnowledge(dir);
  opened.push(knowledge);
  return knowledge;
}

const page = (content: string, extra: Record<string, unknown> = {}) =>
  parsePageInput({ slug: 'ops/backups', title: 'Backups', summary: 'How the nightly backup works.', content, ...extra });

const slugs = async (kb: KnowledgeBase, query: string) => (await kb.search(query)).hits.map((h) => h.slug);

describe('revisions', () => {
  it('keeps every version: unchanged saves add nothing, updates add a revision, revert adds one more', async () => {
    const { kb } = await fresh();
    expect((await kb.save(page('Backups run at 02:00 with restic.'), { source: 'cli' })).status).toBe('created');
    expect((await kb.save(page('Backups run at 02:00 with restic.'), { source: 'import' })).status).toBe('unchanged');
    const updated = await kb.save(page('Backups run at 03:00 with borg.'), { source: 'cli', author: 'alice' });
    expect(updated).toMatchObject({ status: 'updated', page: { revision: 2, content: 'Backups run at 03:00 with borg.' } });

    const reverted = await kb.revert('ops/backups', 1, { source: 'cli', author: 'bob' });
    expect(reverted).toMatchObject({ status: 'updated', page: { revision: 3, content: 'Backups run at 02:00 with restic.' } });
    const history = (await kb.history('ops/backups'))!;
    expect(history.map((r) => [r.revision, r.source, r.author, r.note])).toEqual([
      [3, 'cli', 'bob', 'revert to r1'],
      [2, 'cli', 'alice', undefined],
      [1, 'cli', undefined, undefined],
    ]);
    expect(history[0]!.hash).toBe(history[2]!.hash);
    expect((await kb.revert('ops/backups', 3, { source: 'cli' }))!.status).toBe('unchanged');
    expect(await kb.revert('ops/backups', 9, { source: 'cli' })).toBeUndefined();
    expect(await kb.revert('nope', 1, { source: 'cli' })).toBeUndefined();
  });

  it('gives pages time-ordered ids (UUID version 7): pages saved later sort after, in batches or one by one', async () => {
    const { kb } = await fresh();
    const later = () => new Promise((resolve) => setTimeout(resolve, 3));
    const batch = async (names: string[]) =>
      (
        await kb.saveMany(
          names.map((slug) => ({ ...page(`About ${slug}.`), slug })),
          { source: 'import' },
        )
      ).map((r) => r.page!.id);
    const first = await batch(['a/one', 'a/two', 'a/three']);
    await later();
    const second = await batch(['b/one', 'b/two']);
    await later();
    const single = (await kb.save({ ...page('Alone.'), slug: 'c/one' }, { source: 'cli' })).page!.id;
    for (const id of [...first, ...second, single])
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set([...first, ...second, single]).size).toBe(6);
    expect(Math.max(...first.map((id) => parseInt(id.slice(0, 13).replace('-', ''), 16)))).toBeLessThanOrEqual(Date.now());
    for (const a of first) for (const b of second) expect(a < b).toBe(true);
    for (const b of second) expect(b < single).toBe(true);
  });

  it('refuses a write based on an outdated revision, and a dry run writes nothing', async () => {
    const { kb } = await fresh();
    await kb.save(page('one'), { source: 'cli' });
    await kb.save(page('two'), { source: 'cli' });
    expect((await kb.save(page('three'), { source: 'cli', expectedRevision: 1 })).status).toBe('conflict');
    expect((await kb.save(page('new', { slug: 'ops/other' }), { source: 'cli', expectedRevision: 1 })).status).toBe('conflict');
    const dry = await kb.save(page('three'), { source: 'cli', dryRun: true });
    expect(dry).toMatchObject({ status: 'updated', page: { revision: 3 } });
    expect((await kb.get('ops/backups'))!.content).toBe('two');
    expect((await kb.history('ops/backups'))!).toHaveLength(2);
  });

  it('deletes a page with its history', async () => {
    const { kb } = await fresh();
    await kb.save(page('one'), { source: 'cli' });
    expect(await kb.remove('ops/backups')).toBe(true);
    expect(await kb.get('ops/backups')).toBeUndefined();
    expect(await kb.history('ops/backups')).toBeUndefined();
    expect(await kb.remove('ops/backups')).toBe(false);
  });
});

describe('the search index follows the pages', () => {
  it('reflects creates, updates, reverts and deletes made through the same knowledge base', async () => {
    const { kb } = await fresh();
    await kb.save(page('Nightly snapshots go to the restic repository.'), { source: 'cli' });
    expect(await slugs(kb, 'restic snapshots')).toEqual(['ops/backups']);
    await kb.save(page('Nightly snapshots go to the borg repository.'), { source: 'cli' });
    expect(await slugs(kb, 'restic')).toEqual([]);
    expect(await slugs(kb, 'borg')).toEqual(['ops/backups']);
    await kb.revert('ops/backups', 1, { source: 'cli' });
    expect(await slugs(kb, 'restic')).toEqual(['ops/backups']);
    await kb.remove('ops/backups');
    expect(await slugs(kb, 'snapshots')).toEqual([]);
    expect(kb.indexStats()).toMatchObject({ pages: 0, sections: 0 });
  });

  it('picks up writes made by another process before searching', async () => {
    const bot = await fresh();
    const cli = new KnowledgeBase({ repo: (await fresh(bot.dir)).store.knowledge, indexFile: join(bot.dir, 'other-host-index.db') });
    expect(await slugs(bot.kb, 'restic')).toEqual([]);
    await cli.save(page('Snapshots use restic.'), { source: 'cli' });
    await cli.save(page('Rotation policy for restic.', { slug: 'ops/rotation', title: 'Rotation' }), { source: 'cli' });
    expect((await slugs(bot.kb, 'restic')).sort()).toEqual(['ops/backups', 'ops/rotation']);
    await cli.save(page('Snapshots use borg now.'), { source: 'cli' });
    await cli.remove('ops/rotation');
    expect(await slugs(bot.kb, 'restic')).toEqual([]);
    expect(await slugs(bot.kb, 'borg')).toEqual(['ops/backups']);

    // Deleting the most recently written page makes the newest revision id go back: the index
    // drops that page alone instead of starting over.
    await cli.save(page('Newest page about zfs.', { slug: 'ops/zfs', title: 'ZFS' }), { source: 'cli' });
    expect(await slugs(bot.kb, 'zfs')).toEqual(['ops/zfs']);
    await cli.remove('ops/zfs');
    expect(await bot.kb.sync()).toMatchObject({ rebuilt: false, indexed: 0, removed: 1 });
    expect(await slugs(bot.kb, 'zfs')).toEqual([]);
    expect(await slugs(bot.kb, 'borg')).toEqual(['ops/backups']);
    await cli.close();
  });

  it('rebuilds a lost index on start, and starts over when the database is older than the index', async () => {
    const first = await fresh();
    await first.kb.save(page('Snapshots use restic.'), { source: 'cli' });
    await first.kb.sync();
    const indexFile = first.kb.indexStats().file;
    await first.close();
    opened.pop();
    rmSync(indexFile);
    const restarted = await fresh(first.dir);
    expect(await slugs(restarted.kb, 'restic')).toEqual(['ops/backups']);
    expect((await restarted.kb.sync()).rebuilt).toBe(false);

    // A new, empty database next to the old index: the old pages must not be found.
    await restarted.close();
    opened.pop();
    rmSync(first.dbFile);
    const recreated = await fresh(first.dir);
    expect(await slugs(recreated.kb, 'restic')).toEqual([]);
    await recreated.kb.save(page('Snapshots use borg.'), { source: 'cli' });
    expect(await slugs(recreated.kb, 'borg')).toEqual(['ops/backups']);
  });

  it('finds a page by title, summary and tags, and ranks a title match above a body match', async () => {
    const { kb } = await fresh();
    await kb.save(parsePageInput({ slug: 'a', title: 'Deployment checklist', content: 'Steps to follow.' }), { source: 'cli' });
    await kb.save(
      parsePageInput({
        slug: 'b',
        title: 'Notes',
        content: 'We also wrote a deployment guide somewhere else entirely, with many other words around it.',
      }),
      { source: 'cli' },
    );
    await kb.save(parsePageInput({ slug: 'c', title: 'Misc', summary: 'About the pager rotation.', tags: ['oncall'], content: '' }), {
      source: 'cli',
    });
    expect(await slugs(kb, 'deployment')).toEqual(['a', 'b']);
    expect(await slugs(kb, 'pager')).toEqual(['c']);
    expect(await slugs(kb, 'oncall')).toEqual(['c']);
  });
});

describe('empty index', () => {
  it('answers searches with no hits before any page exists, without creating an index file', async () => {
    const knowledge = await fresh(knowledgeTempDir('parley-knowledge-empty-'));
    expect((await knowledge.kb.search('anything at all')).hits).toEqual([]);
    expect(await knowledge.kb.relevantSections('anything', { limit: 3, minScore: 0 })).toEqual([]);
    expect(await knowledge.kb.sync()).toMatchObject({ indexed: 0, rebuilt: false });
    expect(readdirSync(knowledge.dir).filter((name) => name.includes('knowledge-index'))).toEqual([]);
  });
});
