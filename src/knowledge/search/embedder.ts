// The embeddings endpoint of the OpenAI-compatible server the operator already uses
// (POST {OPENAI_BASE_URL}/embeddings), for optional semantic search. Plain fetch rather than the
// SDK: it is only loaded when OPENAI_EMBEDDING_MODEL is set, and "float" output is what every
// compatible server (OpenAI, vLLM, Ollama, LM Studio...) understands.
import { z } from 'zod';
import type { Config } from '../../config/config.ts';

export interface EmbeddingSettings {
  model: string;
  baseUrl?: string;
  apiKey?: string;
  timeoutMs: number;
}

export interface Embedder {
  readonly model: string;
  /** One unit-length vector per text, in order; `retries` transient failures are retried (default 2). */
  embed(texts: string[], options?: { signal?: AbortSignal; retries?: number }): Promise<Float32Array[]>;
}

class EmbeddingError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'EmbeddingError';
    this.status = status;
  }
}

const ResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative().optional(), embedding: z.array(z.number()).min(1) })),
});

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const RETRIES = 2;

function normalise(values: number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

export function createEmbedder(settings: EmbeddingSettings): Embedder {
  const url = `${(settings.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '')}/embeddings`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;

  const once = async (texts: string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    const timeout = AbortSignal.timeout(settings.timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: settings.model, input: texts, encoding_format: 'float' }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throw new EmbeddingError(
        `embeddings request failed: ${timeout.aborted ? `no answer within ${settings.timeoutMs} ms` : (error as Error).message}`,
      );
    }
    if (!response.ok) {
      const retryAfter = Number(response.headers.get('retry-after'));
      await response.body?.cancel().catch(() => {});
      const error = new EmbeddingError(`embeddings server answered ${response.status}`, response.status);
      Object.assign(error, { retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 30) * 1000 : undefined });
      throw error;
    }
    const parsed = ResponseSchema.safeParse(await response.json().catch(() => undefined));
    // A malformed answer (status -1) is not worth retrying.
    if (!parsed.success || parsed.data.data.length !== texts.length) {
      throw new EmbeddingError(`embeddings server sent an unexpected answer (expected ${texts.length} vectors)`, -1);
    }
    const ordered = [...parsed.data.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    const vectors = ordered.map((item) => normalise(item.embedding));
    if (vectors.some((v) => v.length !== vectors[0]!.length))
      throw new EmbeddingError('embeddings server sent vectors of different lengths', -1);
    return vectors;
  };

  return {
    model: settings.model,
    async embed(texts, options = {}) {
      const { signal, retries = RETRIES } = options;
      if (texts.length === 0) return [];
      for (let attempt = 0; ; attempt++) {
        try {
          return await once(texts, signal);
        } catch (error) {
          const status = error instanceof EmbeddingError ? error.status : undefined;
          const transient = status === undefined || status === 429 || status >= 500;
          if (!transient || attempt >= retries || signal?.aborted) throw error;
          await pause((error as { retryAfterMs?: number }).retryAfterMs ?? 500 * 2 ** attempt, signal);
        }
      }
    },
  };
}

/** Embedding settings from the configuration: the model server's URL and key, if a model is named. */
export function embeddingSettings(config: Pick<Config, 'model' | 'knowledge'>): EmbeddingSettings | undefined {
  const model = config.knowledge.embeddingModel;
  if (!model) return undefined;
  return { model, baseUrl: config.model.baseUrl, apiKey: config.model.apiKey, timeoutMs: Math.min(config.model.timeoutMs, 60_000) };
}
