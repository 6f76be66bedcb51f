// Page embeddings for optional semantic search, stored in the index file beside the postings
// (table `embedding`, which survives a rebuild of the index: a vector is keyed by the model and
// a hash of the text it was computed from, so an unchanged page is never embedded twice).
// Vectors are kept as signed bytes with one scale each (a quarter of the space of floats; the
// ranking by cosine does not change measurably). A search compares the query with every vector.
import type { KnowledgePageRecord } from '../../store/repos/knowledge.ts';
import type { SearchIndexFile } from './index-file.ts';

/** Characters of a page that are embedded: title, summary, tags, then the Markdown from the start. */
const EMBEDDED_CHARS = 2_000;

export function embeddingText(page: Pick<KnowledgePageRecord, 'title' | 'summary' | 'tags' | 'content'>): string {
  const head = [page.title, page.summary, page.tags.join(', ')].filter(Boolean).join('\n');
  return `${head}\n${page.content.slice(0, EMBEDDED_CHARS)}`.slice(0, EMBEDDED_CHARS).trim();
}

export function textHash(text: string): string {
  // node:crypto loaded on use: `parley knowledge search` hashes nothing and starts sooner without it.
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

function quantize(vector: Float32Array): { scale: number; data: Buffer } {
  let max = 0;
  for (const v of vector) max = Math.max(max, Math.abs(v));
  const scale = max > 0 ? max / 127 : 1;
  const data = Buffer.allocUnsafe(vector.length);
  for (let i = 0; i < vector.length; i++) data.writeInt8(Math.round(vector[i]! / scale), i);
  return { scale, data };
}

export interface SemanticHit {
  doc: number;
  similarity: number;
}

interface Loaded {
  key: string;
  dims: number;
  docs: Int32Array;
  scales: Float32Array;
  data: Int8Array;
}

/** The vectors of the indexed pages for one model, loaded once per change of the index file. */
export class VectorIndex {
  readonly #file: SearchIndexFile;
  #loaded: Loaded | undefined;

  constructor(file: SearchIndexFile) {
    this.#file = file;
  }

  /** Pages (id and embedding hash) that have no vector for `model` yet. */
  missing(model: string, limit: number): { id: string; hash: string }[] {
    return this.#file
      .statement(
        'SELECT p.id, p.embed AS hash FROM page p WHERE p.embed IS NOT NULL AND NOT EXISTS (SELECT 1 FROM embedding e WHERE e.model = ? AND e.hash = p.embed) LIMIT ?',
      )
      .all(model, limit) as { id: string; hash: string }[];
  }

  /** How many indexed pages have a vector for `model`, of how many. */
  coverage(model: string): { embedded: number; pages: number } {
    const row = this.#file
      .statement(
        'SELECT count(*) AS pages, count(e.hash) AS embedded FROM page p LEFT JOIN embedding e ON e.model = ? AND e.hash = p.embed WHERE p.embed IS NOT NULL',
      )
      .get(model) as { pages: number; embedded: number };
    return row;
  }

  store(model: string, vectors: { hash: string; vector: Float32Array }[]): void {
    const insert = this.#file.statement('INSERT OR REPLACE INTO embedding (model, hash, dims, scale, data) VALUES (?, ?, ?, ?, ?)');
    this.#file.write(() => {
      for (const { hash, vector } of vectors) {
        const { scale, data } = quantize(vector);
        insert.run(model, hash, vector.length, scale, data);
      }
    });
  }

  #load(model: string): Loaded | undefined {
    const key = `${model}\u0000${this.#file.version()}`;
    if (this.#loaded?.key === key) return this.#loaded;
    const rows = this.#file
      .statement('SELECT p.doc, e.dims, e.scale, e.data FROM page p JOIN embedding e ON e.model = ? AND e.hash = p.embed ORDER BY p.doc')
      .all(model) as { doc: number; dims: number; scale: number; data: Buffer }[];
    const dims = rows[0]?.dims ?? 0;
    const usable = rows.filter((r) => r.dims === dims);
    const loaded: Loaded = {
      key,
      dims,
      docs: Int32Array.from(usable, (r) => r.doc),
      scales: Float32Array.from(usable, (r) => r.scale),
      data: new Int8Array(usable.length * dims),
    };
    for (const [i, r] of usable.entries()) loaded.data.set(new Int8Array(r.data.buffer, r.data.byteOffset, dims), i * dims);
    this.#loaded = loaded;
    return loaded;
  }

  /** The `k` pages closest to `query` (a unit vector from the same model). */
  search(model: string, query: Float32Array, k: number): SemanticHit[] {
    const loaded = this.#load(model);
    if (!loaded || loaded.dims !== query.length || loaded.docs.length === 0) return [];
    const { dims, docs, scales, data } = loaded;
    const hits: SemanticHit[] = [];
    for (let p = 0; p < docs.length; p++) {
      let dot = 0;
      const base = p * dims;
      for (let i = 0; i < dims; i++) dot += query[i]! * data[base + i]!;
      hits.push({ doc: docs[p]!, similarity: dot * scales[p]! });
    }
    return hits.sort((a, b) => b.similarity - a.similarity || a.doc - b.doc).slice(0, k);
  }
}
