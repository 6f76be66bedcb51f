// Imports in batches: a batch is written in one transaction (all pages or none) with the same rows
// and outcomes as saving the pages one by one, and is indexed as one segment.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { KnowledgeBase } from '../../src/knowledge/knowledge-base.ts';
import { parsePageInput } from '../../src/knowledge/page-file.ts';
import { openStore } from '../../src/store/store.ts';
import type { TestKnowledge } from './helpers.ts';
import { knowledgeTempDir, openKnowledge, removeTempDirs } from './helpers.ts';

afterAll(removeTempDirs);

const adminUrl = process.env.PARLEY_TEST_POSTGRES_URL;

const page = (slug: string, content: string, extra: Record<string, unknown> = {}) =>
  parsePageInput({
    slug,
    title: `Title ${slug}`,
    summary: `About ${slug}.`,
    content,
    tags: ['a', 'b'],
    references: ['https://x.y'],
    ...extra,
  });

async function rows(knowledge: TestKnowledge) {
  const out = [];
  for await (const p of knowledge.kb.allPages()) {
    const history = (await knowledge.kb.history(p.slug))!.map(({ createdAt, ...r }) => ({
      ...r,
      createdAt: createdAt instanceof Date && !Number.isNaN(createdAt.getTime()),
    }));
    out.push({
      slug: p.slug,
      title: p.title,
      summary: p.summary,
      content: p.content,
      tags: p.tags,
      references: p.references,
      source: p.source,
      revision: p.revision,
      hash: p.hash,
      dates: p.createdAt <= p.updatedAt,
      history,
    });
  }
  return out.sort((a, b) => a.slug.localeCompare(b.slug));
}

async function sameAsOneByOne(batch: TestKnowledge, single: TestKnowledge): Promise<void> {
  const first = [page('a', 'one'), page('b', 'two'), page('c', 'three')];
  const second = [page('a', 'one'), page('b', 'two, changed'), page('d', 'four')];
  const options = { source: 'import', author: 'ci' };
  const outcomes = async (knowledge: TestKnowledge, pages: typeof first, batched: boolean) => {
    const results = batched
      ? await knowledge.kb.saveMany(
          pages.map((p) => ({ ...p, note: `import ${p.slug}.md` })),
          options,
        )
      : await Promise.all(pages.map((p) => knowledge.kb.save(p, { ...options, note: `import ${p.slug}.md` })));
    return results.map((r) => [r.status, r.page?.slug, r.page?.revision]);
  };
  expect(await outcomes(batch, first, true)).toEqual(await outcomes(single, first, false));
  expect(await outcomes(batch, second, true)).toEqual([
    ['unchanged', 'a', 1],
    ['updated', 'b', 2],
    ['created', 'd', 1],
  ]);
  await outcomes(single, second, false);
  expect(await rows(batch)).toEqual(await rows(single));
  // A dry run reports without writing.
  const dry = await batch.kb.saveMany([page('e', 'five'), page('a', 'one, again')], { source: 'import', dryRun: true });
  expect(dry.map((r) => r.status)).toEqual(['created', 'updated']);
  expect(await batch.kb.get('e')).toBeUndefined();
  // And the batch is searchable at once.
  expect((await batch.kb.search('four')).hits.map((h) => h.slug)).toEqual(['d']);
}

describe('saving a batch', () => {
  it('writes the same pages, revisions and outcomes as saving them one by one', async () => {
    const batch = await openKnowledge();
    const single = await openKnowledge();
    try {
      await sameAsOneByOne(batch, single);
    } finally {
      await batch.close();
      await single.close();
    }
  });

  it('writes all pages of a batch or none of them', async () => {
    const knowledge = await openKnowledge();
    try {
      await knowledge.kb.save(page('kept', 'already here'), { source: 'cli' });
      // A failure in the middle of the batch (as a full disk would cause).
      const db = new Database(knowledge.dbFile);
      db.exec(
        `CREATE TRIGGER fail_on_bad BEFORE INSERT ON "KnowledgePage" WHEN NEW."slug" = 'bad' BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
      );
      db.close();
      await expect(
        knowledge.kb.saveMany([page('x', 'first'), page('y', 'second'), page('bad', 'third'), page('z', 'fourth')], { source: 'import' }),
      ).rejects.toThrow(/disk full/);
      expect((await knowledge.kb.list()).map((p) => p.slug)).toEqual(['kept']);
      expect((await knowledge.kb.search('first second fourth')).hits).toEqual([]);
    } finally {
      await knowledge.close();
    }
  });
});

describe.runIf(adminUrl)('saving a batch on PostgreSQL', () => {
  const names = [0, 1].map(() => `parley_test_${randomBytes(4).toString('hex')}`);
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  afterAll(async () => {
    for (const name of names) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('writes the same pages, revisions and outcomes as saving them one by one', async () => {
    const open = async (name: string): Promise<TestKnowledge> => {
      await admin(`CREATE DATABASE ${name}`);
      const url = new URL(adminUrl!);
      url.pathname = `/${name}`;
      const store = await openStore(parseDatabaseUrl(url.toString()));
      const dir = knowledgeTempDir();
      const kb = new KnowledgeBase({ repo: store.knowledge, indexFile: join(dir, 'index.db') });
      return {
        dir,
        dbFile: '',
        store,
        kb,
        close: async () => {
          await kb.close();
          await store.close();
        },
      };
    };
    const batch = await open(names[0]!);
    const single = await open(names[1]!);
    try {
      await sameAsOneByOne(batch, single);
    } finally {
      await batch.close();
      await single.close();
    }
  });
});
