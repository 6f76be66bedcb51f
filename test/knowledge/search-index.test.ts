// The page index itself: the first pass returns exactly the top pages of the full sum while
// skipping most of a frequent term's postings; writes, deletes and merges never lose or resurrect
// a page; another process emptying the index is noticed; title, summary and tags are stored once
// per page, not once per section.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePageInput } from '../../src/knowledge/page-file.ts';
import { AnalyzerPool } from '../../src/knowledge/search/analyzer-pool.ts';
import { findDoc } from '../../src/knowledge/search/codec.ts';
import { firstPass, resolveTerms, type ResolvedTerm } from '../../src/knowledge/search/first-pass.ts';
import { KnowledgeIndex, type KnowledgeIndexSource } from '../../src/knowledge/search/knowledge-index.ts';
import { MERGE_FACTOR } from '../../src/knowledge/search/merge.ts';
import { tokenize } from '../../src/knowledge/tokenizer.ts';
import type { KnowledgePageRecord } from '../../src/store/repos/knowledge.ts';
import { knowledgeTempDir, openKnowledge, removeTempDirs } from './helpers.ts';

afterAll(removeTempDirs);

const VOCABULARY = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

function record(n: number, content: string, revision = 1): KnowledgePageRecord {
  const now = new Date(0);
  return {
    id: `p${String(n).padStart(6, '0')}`,
    slug: `page/${n}`,
    title: `Page ${n}`,
    summary: '',
    content,
    tags: [],
    references: [],
    source: 'cli',
    revision,
    hash: '',
    createdAt: now,
    updatedAt: now,
  };
}

/** A source over an in-memory list of pages (what the database would hold). */
function memorySource(pages: Map<string, KnowledgePageRecord>): KnowledgeIndexSource {
  const sorted = () => [...pages.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    stamp: async () => ({ pages: pages.size, lastRevisionId: pages.size }),
    changedSince: async (after) => ({ pageIds: [], lastRevisionId: after }),
    getByIds: async (ids) => ids.flatMap((id) => (pages.has(id) ? [pages.get(id)!] : [])),
    versions: async () => new Map(sorted().map((p) => [p.id, p.revision])),
    batchAfter: async (after, size) =>
      sorted()
        .filter((p) => p.id > after)
        .slice(0, size),
  };
}

/** The top m of the plain sum over every posting, in the same order of terms. */
function exhaustiveTop(terms: ResolvedTerm[], m: number, deleted: Set<number>): { doc: number; score: number }[] {
  const scores = new Map<number, number>();
  for (const term of terms) {
    for (const list of term.lists) {
      list.docs.forEach((doc, p) => {
        if (!deleted.has(doc)) scores.set(doc, (scores.get(doc) ?? 0) + term.scale * list.impacts[p]!);
      });
    }
  }
  return [...scores]
    .map(([doc, score]) => ({ doc, score }))
    .sort((a, b) => b.score - a.score || a.doc - b.doc)
    .slice(0, m);
}

describe('first pass', () => {
  it('equals the exhaustive top m for any pages and weighted query', async () => {
    const pageArb = fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 30 }).map((words) => words.join(' '));
    const queryArb = fc.array(fc.record({ term: fc.constantFrom(...VOCABULARY), weight: fc.double({ min: 0.1, max: 1, noNaN: true }) }), {
      minLength: 1,
      maxLength: 6,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(pageArb, { minLength: 1, maxLength: 60 }),
        fc.array(queryArb, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 8 }),
        async (contents, queries, m) => {
          const pages = new Map(contents.map((content, n) => [record(n, content).id, record(n, content)]));
          const index = new KnowledgeIndex({ source: memorySource(pages), file: ':memory:' });
          try {
            await index.sync();
            for (const query of queries) {
              const terms = resolveTerms(
                index.indexFile,
                query.map((q) => ({ term: tokenize(q.term)[0]!, weight: q.weight })),
              );
              const deleted = index.indexFile.deletedDocs();
              const { pages: top } = firstPass(terms, m, deleted);
              expect(top).toEqual(exhaustiveTop(terms, m, deleted));
            }
          } finally {
            await index.close();
          }
        },
      ),
      { seed: 42, numRuns: 60 },
    );
  });

  it('stops reading a frequent term once the top pages cannot change', async () => {
    const pages = new Map<string, KnowledgePageRecord>();
    for (let n = 0; n < 2_000; n++)
      pages.set(record(n, '').id, record(n, n % 400 === 0 ? 'rare word here, common too' : `common text number ${n}`));
    const index = new KnowledgeIndex({ source: memorySource(pages), file: ':memory:' });
    try {
      await index.sync();
      const terms = resolveTerms(index.indexFile, [
        { term: 'rare', weight: 1 },
        { term: 'common', weight: 1 },
      ]);
      const { pages: top, stats } = firstPass(terms, 3, new Set());
      expect(top).toEqual(exhaustiveTop(terms, 3, new Set()));
      expect(stats.postings).toBe(2_005);
      expect(stats.scanned).toBe(5); // only "rare"; "common" was looked up for the 3 pages that could still win
      expect(stats.lookups).toBeLessThanOrEqual(5);
      expect(findDoc(terms[1]!.lists[0]!.docs, top[0]!.doc)).toBeGreaterThanOrEqual(0);
    } finally {
      await index.close();
    }
  });
});

describe('segments', () => {
  it('never loses or resurrects a page through updates, deletes and merges', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('save' as const),
        page: fc.integer({ min: 0, max: 11 }),
        words: fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 5 }),
      }),
      fc.record({ kind: fc.constant('remove' as const), page: fc.integer({ min: 0, max: 11 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const truth = new Map<string, KnowledgePageRecord>();
        const index = new KnowledgeIndex({ source: memorySource(truth), file: ':memory:' });
        try {
          for (const step of ops) {
            const id = record(step.page, '').id;
            if (step.kind === 'save') {
              const page = record(step.page, step.words.join(' '), (truth.get(id)?.revision ?? 0) + 1);
              truth.set(id, page);
              await index.indexPages([page]);
            } else {
              truth.delete(id);
              index.removePages([id]);
            }
          }
          expect(index.stats().segments).toBeLessThan(2 * MERGE_FACTOR);
          for (const word of VOCABULARY) {
            const term = tokenize(word)[0]!;
            const expected = [...truth.values()]
              .filter((p) => tokenize(p.content).includes(term))
              .map((p) => p.slug)
              .sort();
            const found = index
              .rank([{ term, weight: 1 }], 50, { candidates: 50 })
              .map((p) => p.slug)
              .sort();
            expect(found).toEqual(expected);
          }
        } finally {
          await index.close();
        }
      }),
      { seed: 42, numRuns: 40 },
    );
  });

  it('notices when another process emptied the index between looking up term ids and writing', async () => {
    const file = join(knowledgeTempDir(), 'index.db');
    const truth = new Map<string, KnowledgePageRecord>();
    const writer = new KnowledgeIndex({ source: memorySource(truth), file });
    const other = new KnowledgeIndex({ source: memorySource(truth), file });
    try {
      const first = record(1, 'alpha bravo');
      truth.set(first.id, first);
      await writer.indexPages([first]); // the writer now holds term ids of this index
      await other.rebuild(); // a `parley knowledge reindex` elsewhere: ids start over
      const second = record(2, 'charlie alpha');
      truth.set(second.id, second);
      await writer.indexPages([second]);
      expect(other.rank([{ term: 'charli', weight: 1 }], 5, { candidates: 5 }).map((p) => p.slug)).toEqual(['page/2']);
      expect(
        other
          .rank([{ term: 'alpha', weight: 1 }], 5, { candidates: 5 })
          .map((p) => p.slug)
          .sort(),
      ).toEqual(['page/1', 'page/2']);
      expect(other.rank([{ term: 'bravo', weight: 1 }], 5, { candidates: 5 }).map((p) => p.slug)).toEqual(['page/1']);
    } finally {
      await writer.close();
      await other.close();
    }
  });
});

describe('index size', () => {
  it('stores a page’s title, summary and tags once, however many sections it has', async () => {
    const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i.toString(36)}x`).join(' ');
    const summary = words('summ', 200);
    const sections = Array.from({ length: 30 }, (_, s) => `## Part ${s}\n\nShort text ${s}.`).join('\n\n');
    const size = async (withSummary: boolean) => {
      const knowledge = await openKnowledge();
      try {
        for (let n = 0; n < 20; n++) {
          await knowledge.kb.save(
            parsePageInput({ slug: `p/${n}`, title: `Page ${n}`, summary: withSummary ? `${summary} ${n}` : '', content: sections }),
            { source: 'cli' },
          );
        }
        await knowledge.kb.sync();
        return knowledge.kb.indexStats().bytes;
      } finally {
        await knowledge.close();
      }
    };
    const perPage = ((await size(true)) - (await size(false))) / 20;
    // Old layout: one row per section repeating the summary (30 × ~1.4 KB of terms per page).
    expect(perPage).toBeLessThan(4 * summary.length);
  });
});

describe('worker threads', () => {
  it('build the same index as the main thread alone', async () => {
    const pages = new Map<string, KnowledgePageRecord>();
    for (let n = 0; n < 1_200; n++) {
      const words = Array.from({ length: 40 }, (_, i) => VOCABULARY[(n * 7 + i * i) % VOCABULARY.length]!).join(' ');
      const page = record(
        n,
        `# Page ${n}\n\n## Part\n\n${words} 中文内容${n % 13}\n\n## Other\n\n${VOCABULARY[n % 12]} camelCaseWord${n % 5}`,
      );
      pages.set(page.id, page);
    }
    const ranked = async (workers: boolean) => {
      const index = new KnowledgeIndex({ source: memorySource(pages), file: join(knowledgeTempDir(), 'index.db'), workers });
      try {
        await index.sync();
        expect(index.preparedOnWorkers).toBe(workers && availableParallelism() >= 2 ? pages.size : 0);
        return ['alpha bravo', '中文内容', 'camelCaseWord3 lima', 'hotel'].map((query) =>
          index
            .rank(
              tokenize(query).map((term) => ({ term, weight: 1 })),
              10,
              { candidates: 16 },
            )
            .map((p) => [p.slug, Math.round(p.score * 1000)]),
        );
      } finally {
        await index.close();
      }
    };
    // `parley` runs from any directory: the workers must not look for their loader in it.
    const cwd = process.cwd();
    process.chdir(knowledgeTempDir());
    try {
      expect(await ranked(true)).toEqual(await ranked(false));
    } finally {
      process.chdir(cwd);
    }
  });

  it('fail visibly when they cannot open the index, so the build falls back to the main thread', async () => {
    const pool = AnalyzerPool.start(join(knowledgeTempDir(), 'missing', 'index.db'));
    if (availableParallelism() < 2) return expect(pool).toBeUndefined();
    await expect(pool!.prepare([record(1, 'alpha')])).rejects.toThrow();
    await pool!.close();
  });
});
