// Streaming chat completions against any OpenAI-compatible server (OpenAI, DeepSeek, Qwen, vLLM,
// Ollama...), sent by chat-stream.ts. Retries are Parley's own (src/llm/retry.ts): a busy server is
// waited out within a time budget, other transient failures retried a few times, /stop ends a wait.
import type { ModelConfig } from '../config/config.ts';
import { sleep } from '../core/delivery.ts';
import { chatChunks, chatEndpoint } from './chat-stream.ts';
import { LlmError, toLlmError } from './errors.ts';
import type { ModelTransport } from './model-transport.ts';
import { nextWait, retryVerdict, type RetryState } from './retry.ts';
import { messagesJson, requestJson } from './request-body.ts';
import type { CompleteOptions, Completion, CompletionRequest, LlmClient, ToolCall } from './types.ts';

export interface LlmClientOptions {
  baseUrl?: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  /** Retries of failures other than "busy" answers (5xx, connection errors, timeouts). */
  maxRetries: number;
  /** No retry starts later than this after a request's first attempt (default 2 minutes). */
  retryBudgetMs?: number;
  temperature?: number;
  /** Abort a stream that sends nothing for this long. Defaults to `timeoutMs`. */
  idleTimeoutMs?: number;
  /** Told of every 429/5xx answer (retried while the budget allows). */
  onHttpError?: (status: number) => void;
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/** Some servers stream reasoning as `reasoning_content` (DeepSeek, Qwen), others as `reasoning`. */
function reasoningOf(delta: { reasoning_content?: unknown; reasoning?: unknown }): string | undefined {
  const value = delta.reasoning_content ?? delta.reasoning;
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function createLlmClient(options: LlmClientOptions): LlmClient {
  // The transport (undici) loads with the first request, so an idle bot does not carry it.
  let transport: Promise<ModelTransport> | undefined;
  const connect = () => (transport ??= import('./model-transport.ts').then(({ modelTransport }) => modelTransport()));
  const endpoint = chatEndpoint(options);
  const idleTimeoutMs = options.idleTimeoutMs ?? options.timeoutMs;
  const policy = { budgetMs: options.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS, maxRetries: options.maxRetries };

  /** One request; `streamed` is set once any part of the answer was handed on. */
  async function attempt(request: CompletionRequest, callOptions: CompleteOptions, progress: { streamed: boolean }): Promise<Completion> {
    const outer = callOptions.signal;
    if (outer?.aborted) throw new LlmError('aborted', 'The model request was aborted before it started');
    // Aborted by the caller (with its reason) or by the idle timer. One controller and a listener
    // rather than AbortSignal.any, which costs more per request than the rest of this function.
    const controller = new AbortController();
    const signal = controller.signal;
    const onOuterAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    let idleTimer: NodeJS.Timeout | undefined;
    const armIdle = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(
        () => controller.abort(new LlmError('timeout', `No data from the model for ${idleTimeoutMs} ms`)),
        idleTimeoutMs,
      );
    };

    let text = '';
    let reasoning = '';
    let finishReason: string | null = null;
    let usage: Completion['usage'];
    const calls = new Map<number, PartialCall>();
    let sawChunk = false;

    try {
      armIdle();
      // The lists are placeholders: requestJson puts the messages' and the tools' kept JSON there.
      const body = {
        model: options.model,
        messages: [],
        stream: true,
        stream_options: { include_usage: true },
        ...(request.tools?.length ? { tools: [], tool_choice: request.toolChoice ?? 'auto' } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      };
      const json = requestJson(body, messagesJson(request.messages), request.tools);
      for await (const chunk of chatChunks(await connect(), endpoint, json, signal, options.onHttpError)) {
        sawChunk = true;
        armIdle();
        if (chunk.usage) {
          usage = {
            promptTokens: chunk.usage.prompt_tokens ?? 0,
            completionTokens: chunk.usage.completion_tokens ?? 0,
            totalTokens: chunk.usage.total_tokens ?? 0,
          };
        }
        for (const choice of chunk.choices ?? []) {
          const delta: NonNullable<typeof choice.delta> = choice.delta ?? {};
          const thought = reasoningOf(delta);
          if (thought) {
            reasoning += thought;
            progress.streamed = true;
            callOptions.onDelta?.({ kind: 'reasoning', text: thought });
          }
          if (typeof delta.content === 'string' && delta.content.length > 0) {
            text += delta.content;
            progress.streamed = true;
            callOptions.onDelta?.({ kind: 'text', text: delta.content });
          }
          for (const fragment of delta.tool_calls ?? []) {
            const index = fragment.index ?? 0;
            const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
            if (fragment.id) call.id = fragment.id;
            if (fragment.function?.name) call.name += fragment.function.name;
            if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
            calls.set(index, call);
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
      }
      if (signal.aborted) throw signal.reason ?? new LlmError('aborted', 'The model request was aborted');
      if (!sawChunk || (finishReason === null && text === '' && calls.size === 0)) {
        throw new LlmError('bad_response', 'The model stream ended without a message');
      }
    } catch (error) {
      if (signal.aborted && !outer?.aborted) throw signal.reason as LlmError;
      throw toLlmError(error, outer);
    } finally {
      clearTimeout(idleTimer);
      outer?.removeEventListener('abort', onOuterAbort);
    }

    const toolCalls: ToolCall[] = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ id: call.id || `call_${index}`, name: call.name, arguments: call.arguments }));
    if (toolCalls.some((call) => call.name === '')) {
      throw new LlmError('bad_response', 'The model sent a tool call without a function name');
    }
    return { text, reasoning, toolCalls, finishReason, usage };
  }

  return {
    model: options.model,
    async complete(request: CompletionRequest, callOptions: CompleteOptions = {}): Promise<Completion> {
      const state: RetryState = { startedAt: Date.now(), transientRetries: 0 };
      for (let n = 1; ; n++) {
        const progress = { streamed: false };
        try {
          return await attempt(request, callOptions, progress);
        } catch (error) {
          const verdict = retryVerdict(error);
          const wait = progress.streamed ? undefined : nextWait(verdict, n, state, policy);
          if (wait === undefined) throw error;
          if (verdict.retry && verdict.busy)
            callOptions.onBusy?.({ retryInMs: wait, attempt: n, ...(verdict.status ? { status: verdict.status } : {}) });
          try {
            await sleep(wait, callOptions.signal);
          } catch (abort) {
            throw toLlmError(abort, callOptions.signal);
          }
        }
      }
    },
  };
}

const DEFAULT_RETRY_BUDGET_MS = 120_000;

export function llmClientFromConfig(config: ModelConfig, onHttpError?: LlmClientOptions['onHttpError']): LlmClient | undefined {
  if (!config.configured || !config.model) return undefined;
  return createLlmClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    model: config.model,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    retryBudgetMs: config.retryBudgetMs,
    temperature: config.temperature,
    onHttpError,
  });
}
