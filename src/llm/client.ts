// Streaming chat completions against any OpenAI-compatible server (OpenAI, DeepSeek, Qwen, vLLM,
// Ollama...), sent by chat-stream.ts. Retries are Parley's own (src/llm/retry.ts): a busy server is
// waited out within a time budget, other transient failures retried a few times, /stop ends a wait.
import { sleep } from '../core/delivery.ts';
import { chatChunks, chatEndpoint } from './chat-stream.ts';
import { LlmError, toLlmError } from './errors.ts';
import type { ModelTransport } from './model-transport.ts';
import { nextWait, retryVerdict, type RetryState } from './retry.ts';
import { messagesJson, requestJson } from './request-body.ts';
import { type ContentParts, ThinkTagSplitter } from './think-tags.ts';
import { ToolCallAssembly } from './tool-call-assembly.ts';
import type { CompleteOptions, Completion, CompletionRequest, LlmClient } from './types.ts';

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
  /** Ask for token usage in the stream (`stream_options.include_usage`, default true). */
  streamUsage?: boolean;
}

/** Some servers stream reasoning as `reasoning_content` (DeepSeek, Qwen), others as `reasoning` (OpenRouter). */
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
    const armIdle = (ms: number) => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => controller.abort(new LlmError('timeout', `No data from the model for ${ms} ms`)), ms);
    };

    let text = '';
    let reasoning = '';
    let finishReason: string | null = null;
    let usage: Completion['usage'];
    const calls = new ToolCallAssembly();
    const content = new ThinkTagSplitter();
    let sawChunk = false;
    const emit = (parts: ContentParts) => {
      if (parts.reasoning) {
        reasoning += parts.reasoning;
        progress.streamed = true;
        callOptions.onDelta?.({ kind: 'reasoning', text: parts.reasoning });
      }
      if (parts.text) {
        text += parts.text;
        progress.streamed = true;
        callOptions.onDelta?.({ kind: 'text', text: parts.text });
      }
    };

    try {
      armIdle(idleTimeoutMs);
      // The lists are placeholders: requestJson puts the messages' and the tools' kept JSON there.
      const body = {
        model: options.model,
        messages: [],
        stream: true,
        ...(options.streamUsage === false ? {} : { stream_options: { include_usage: true } }),
        ...(request.tools?.length ? { tools: [], tool_choice: request.toolChoice ?? 'auto' } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      };
      const json = requestJson(body, messagesJson(request.messages), request.tools);
      for await (const chunk of chatChunks(await connect(), endpoint, json, signal, options.onHttpError)) {
        sawChunk = true;
        // Past the finish, only the usage chunk and the end are still to come: a server that keeps
        // the connection open without them is not waited for as long as for an answer.
        armIdle(finishReason === null ? idleTimeoutMs : Math.min(idleTimeoutMs, AFTER_FINISH_MS));
        if (chunk.usage) {
          const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? chunk.usage.prompt_cache_hit_tokens;
          usage = {
            promptTokens: chunk.usage.prompt_tokens ?? 0,
            completionTokens: chunk.usage.completion_tokens ?? 0,
            totalTokens: chunk.usage.total_tokens ?? 0,
            ...(cached ? { cachedTokens: cached } : {}),
          };
        }
        for (const choice of chunk.choices ?? []) {
          const delta: NonNullable<typeof choice.delta> = choice.delta ?? {};
          const thought = reasoningOf(delta);
          if (thought) emit({ reasoning: thought, text: '' });
          if (typeof delta.content === 'string' && delta.content.length > 0) emit(content.feed(delta.content));
          for (const fragment of delta.tool_calls ?? []) calls.add(fragment);
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
      }
      if (signal.aborted) throw signal.reason ?? new LlmError('aborted', 'The model request was aborted');
      emit(content.end());
      if (!sawChunk || (finishReason === null && text === '' && calls.size === 0)) {
        throw new LlmError('bad_response', 'The model stream ended without a message');
      }
    } catch (error) {
      // The answer was complete when its finish reason came: a connection cut (or left hanging)
      // after it loses at most the usage chunk, not the answer the user already saw.
      if (finishReason !== null && !outer?.aborted) {
        emit(content.end());
        return completionOf(text, reasoning, calls, finishReason, usage);
      }
      if (signal.aborted && !outer?.aborted) throw signal.reason as LlmError;
      throw toLlmError(error, outer);
    } finally {
      clearTimeout(idleTimer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
    return completionOf(text, reasoning, calls, finishReason, usage);
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
/** How long the rest of a stream (usage, `[DONE]`) may take once the finish reason has come. */
const AFTER_FINISH_MS = 5_000;

function completionOf(
  text: string,
  reasoning: string,
  calls: ToolCallAssembly,
  finishReason: string | null,
  usage: Completion['usage'],
): Completion {
  const toolCalls = calls.calls();
  if (toolCalls.some((call) => call.name === '')) {
    throw new LlmError('bad_response', 'The model sent a tool call without a function name');
  }
  return { text, reasoning, toolCalls, finishReason, usage };
}
