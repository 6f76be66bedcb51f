// The cheap check of the configured model, at start, after a failed turn and in `parley doctor`:
// GET <base>/models (no tokens spent) says whether the server is reachable, takes the key and
// serves the model. `parley doctor` also asks for a tiny answer (askForAnswer).
import { z } from 'zod';
import type { ModelConfig } from '../config/config.ts';
import { failureReason } from '../core/doctor.ts';
import { chatEndpoint } from './chat-stream.ts';
import { createLlmClient } from './client.ts';
import type { LlmClient } from './types.ts';
import { type ModelState, modelStateOfError } from './model-state.ts';

const ModelListSchema = z.object({ data: z.array(z.looseObject({ id: z.string() })) });

export type ModelList =
  | { kind: 'listed'; ids: string[] }
  /** The server has no model list (404/405/501, or an answer of another shape): nothing is known. */
  | { kind: 'absent'; status: number }
  | { kind: 'failed'; state: ModelState };

/** GET <base>/models with the key the completions use. */
export async function listModels(config: ModelConfig, timeoutMs: number): Promise<ModelList> {
  const { url, headers } = chatEndpoint(config);
  const modelsUrl = url.replace(/\/chat\/completions$/, '/models');
  let status: number;
  let text: string;
  try {
    // undici as the completions use it (fetch refuses some ports, and ignores the proxy settings the model transport honours).
    const [{ request }, { dispatcher }] = await Promise.all([import('undici'), import('./model-transport.ts')]);
    const agent = dispatcher();
    try {
      const answer = await request(modelsUrl, {
        method: 'GET',
        headers: { accept: 'application/json', authorization: headers.authorization ?? '' },
        signal: AbortSignal.timeout(timeoutMs),
        dispatcher: agent,
      });
      status = answer.statusCode;
      text = await answer.body.text().catch(() => '');
    } finally {
      // One check, one connection: nothing kept alive (a CLI would wait for it to close).
      void agent.close().catch(() => {});
    }
  } catch (error) {
    return { kind: 'failed', state: { kind: 'unreachable', reason: failureReason(error) } };
  }
  if (status === 401 || status === 403) return { kind: 'failed', state: { kind: 'unauthorised', status } };
  if (status < 200 || status >= 300) {
    if (status >= 500 && status !== 501) return { kind: 'failed', state: { kind: 'failing', reason: `GET /models answered ${status}` } };
    return { kind: 'absent', status };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'absent', status };
  }
  const parsed = ModelListSchema.safeParse(json);
  return parsed.success ? { kind: 'listed', ids: parsed.data.data.map((m) => m.id) } : { kind: 'absent', status };
}

/** A client for one check: the configured model, no retries, within `timeoutMs`. */
export function probeClient(config: ModelConfig, timeoutMs: number): LlmClient {
  return createLlmClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    model: config.model ?? '',
    timeoutMs,
    maxRetries: 0,
    retryBudgetMs: 0,
    streamUsage: config.streamUsage,
  });
}

/** One short streamed answer; resolves with its state (answering or why not). */
export async function askForAnswer(config: ModelConfig, timeoutMs: number): Promise<{ state: ModelState; text?: string }> {
  const llm = probeClient(config, timeoutMs);
  try {
    const answer = await llm.complete(
      { messages: [{ role: 'user', content: 'Reply with the single word OK.' }] },
      { signal: AbortSignal.timeout(timeoutMs) },
    );
    return { state: { kind: 'answering' }, text: answer.text };
  } catch (error) {
    return { state: modelStateOfError(error) ?? { kind: 'failing', reason: 'stopped' } };
  }
}

/** Whether the list has the model (Ollama lists `name:latest` for `name`). */
export function listsModel(ids: readonly string[], model: string): boolean {
  return ids.includes(model) || (!model.includes(':') && ids.includes(`${model}:latest`));
}

/**
 * The cheap check: the model list. Never a completion (it would cost tokens at every start and
 * after every failure); a server without the list is only known to be reachable.
 */
export async function checkModel(config: ModelConfig, timeoutMs = 10_000): Promise<ModelState> {
  if (!config.configured || !config.model) return { kind: 'not_configured' };
  const list = await listModels(config, timeoutMs);
  if (list.kind === 'failed') return list.state;
  if (list.kind === 'listed') return listsModel(list.ids, config.model) ? { kind: 'answering' } : { kind: 'unknown_model' };
  return { kind: 'reachable' };
}
