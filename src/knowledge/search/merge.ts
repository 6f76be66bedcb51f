// Segment merging. Every write adds a segment; a query reads each term's list in every segment,
// so small segments are merged: when the newest MERGE_FACTOR segments are all of one size class
// (a power of MERGE_FACTOR in documents) they become one (up to MAX_MERGED_DOCS), which drops the
// documents marked deleted. Segments cover consecutive document numbers and the newest ones are merged, so a
// merged list is the old lists one after the other, still in document order.
import { BlockWriter, decodeList, readBlock, type Postings } from './codec.ts';
import type { SearchIndexFile } from './index-file.ts';
import type { SegmentInfo } from './index-layout.ts';

export const MERGE_FACTOR = 10;
/** Segments this large are left alone: a query reads a few of them cheaply, rewriting them is not. */
const MAX_MERGED_DOCS = 50_000;
const BLOCKS_PER_READ = 64;

const sizeClass = (docs: number) => (docs <= 1 ? 0 : Math.floor(Math.log(docs) / Math.log(MERGE_FACTOR)));

/** The newest segments that should be merged now, if any. */
function mergeCandidates(segments: SegmentInfo[]): SegmentInfo[] | undefined {
  if (segments.length < MERGE_FACTOR) return undefined;
  const size = sizeClass(segments.at(-1)!.docs);
  let start = segments.length - 1;
  while (start > 0 && sizeClass(segments[start - 1]!.docs) === size) start--;
  const run = segments.slice(start);
  if (run.length < MERGE_FACTOR || run.reduce((n, s) => n + s.docs, 0) > MAX_MERGED_DOCS) return undefined;
  return run;
}

/** Merges while the policy asks for it; returns how many merges ran. */
export function mergeSegments(file: SearchIndexFile): number {
  let merges = 0;
  for (let run = mergeCandidates(file.segments()); run; run = mergeCandidates(file.segments())) {
    mergeRun(file, run);
    merges++;
  }
  return merges;
}

/** A segment's lists in term order, read a few blocks at a time. */
function* lists(file: SearchIndexFile, segment: SegmentInfo): Generator<{ termId: number; list: Postings }> {
  const read = file.statement(
    'SELECT first_term AS firstTerm, data FROM block WHERE seg = ? AND first_term > ? ORDER BY first_term LIMIT ?',
  );
  let after = -1;
  for (;;) {
    const rows = read.all(segment.id, after, BLOCKS_PER_READ) as { firstTerm: number; data: Buffer }[];
    if (rows.length === 0) return;
    for (const row of rows) {
      for (const entry of readBlock(row.data, row.firstTerm))
        yield { termId: entry.termId, list: decodeList(row.data, entry, segment.firstDoc) };
    }
    after = rows.at(-1)!.firstTerm;
  }
}

/** Merges `run` (consecutive segments, oldest first) into one segment, in one transaction. */
function mergeRun(file: SearchIndexFile, run: SegmentInfo[]): void {
  file.write(() => {
    // Another process may have merged these already.
    const ids = run.map((s) => s.id);
    const present = file
      .statement(`SELECT count(*) FROM segment WHERE id IN (${ids.map(() => '?').join(', ')})`)
      .pluck()
      .get(...ids) as number;
    if (present !== run.length) return;
    const firstDoc = run[0]!.firstDoc;
    const lastDoc = run.at(-1)!.lastDoc;
    const deleted = new Set(file.statement('SELECT doc FROM deleted WHERE doc BETWEEN ? AND ?').pluck().all(firstDoc, lastDoc) as number[]);
    const { lastInsertRowid } = file
      .statement('INSERT INTO segment (first_doc, last_doc, docs) VALUES (?, ?, ?)')
      .run(firstDoc, lastDoc, lastDoc - firstDoc + 1 - deleted.size);
    const insert = file.statement('INSERT INTO block (seg, first_term, data) VALUES (?, ?, ?)');
    const writer = new BlockWriter(firstDoc, (firstTerm, data) => insert.run(lastInsertRowid, firstTerm, data));
    // Read every segment's lists in term order, side by side; blocks are written as they fill,
    // which is safe because reading pages through the old segments only.
    const sources = run.map((segment) => lists(file, segment));
    const heads = sources.map((source) => source.next());
    const docs: number[] = [];
    const impacts: number[] = [];
    for (;;) {
      let termId = Infinity;
      for (const head of heads) if (!head.done && head.value.termId < termId) termId = head.value.termId;
      if (termId === Infinity) break;
      docs.length = impacts.length = 0;
      heads.forEach((head, i) => {
        if (head.done || head.value.termId !== termId) return;
        const { docs: from, impacts: weights } = head.value.list;
        for (let p = 0; p < from.length; p++) {
          if (deleted.has(from[p]!)) continue;
          docs.push(from[p]!);
          impacts.push(weights[p]!);
        }
        heads[i] = sources[i]!.next();
      });
      writer.add(termId, docs, impacts);
    }
    writer.flush();
    const removeBlocks = file.statement('DELETE FROM block WHERE seg = ?');
    const removeSegment = file.statement('DELETE FROM segment WHERE id = ?');
    for (const segment of run) {
      removeBlocks.run(segment.id);
      removeSegment.run(segment.id);
    }
    file.statement('DELETE FROM deleted WHERE doc BETWEEN ? AND ?').run(firstDoc, lastDoc);
  });
}
