// A worker thread of the analyser pool (analyzer-pool.ts): prepares pages for the index (the
// tokenising, counting, term ids and page records that make up most of a large build) on its own
// connection to the index file, and sends them back with their arrays transferred.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { KnowledgePageRecord } from '../../store/repos/knowledge.ts';
import type { PreparedBatch } from './analyzer-pool.ts';
import { assignTermIds } from './index-layout.ts';
import { analyzePage, encodeForward, pageTermIds, type AnalyzedPage } from './indexed-page.ts';
import { embeddingText, textHash } from './vectors.ts';

const port = parentPort;
if (!port) throw new Error('analyze-worker.ts runs as a worker thread');
const db = new Database((workerData as { file: string }).file, { timeout: 15_000 });
const epochOf = db.prepare("SELECT value FROM meta WHERE key = 'epoch'").pluck();
// Term objects keep their id while the index keeps its epoch (it is emptied, ids start over).
let owner = 0;
let epoch: string | undefined;

function termIds(pages: AnalyzedPage[]): Int32Array[] {
  const current = epochOf.get() as string | undefined;
  if (current !== epoch || owner === 0) {
    owner++;
    epoch = current;
  }
  return pageTermIds(pages, owner, (texts) => assignTermIds(db, texts));
}

port.on('message', ({ id, pages }: { id: number; pages: KnowledgePageRecord[] }) => {
  try {
    const analyzed = pages.map((page) => analyzePage(page));
    const ids = termIds(analyzed);
    const batch: PreparedBatch = {
      epoch,
      pages: analyzed.map((page, i) => ({
        id: page.id,
        slug: page.slug,
        title: page.title,
        revision: page.revision,
        lengths: page.lengths,
        ids: ids[i]!,
        counts: page.counts,
        // A copy with a buffer of its own (small Buffers share a pool that must not be transferred).
        data: new Uint8Array(encodeForward(page, ids[i]!)),
        // Here rather than on the main thread, which writes the pages (the busier side of an import).
        embed: textHash(embeddingText(pages[i]!)),
      })),
    };
    port.postMessage(
      { id, batch },
      batch.pages.flatMap((p) => [p.ids.buffer, p.counts.buffer, p.data.buffer] as ArrayBuffer[]),
    );
  } catch (error) {
    port.postMessage({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
