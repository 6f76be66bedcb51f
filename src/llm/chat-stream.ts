// One streamed chat completion on the wire: the request the openai SDK would send (its URL,
// authorization and organization headers), and every failure as the SDK's own error classes
// (what src/llm/errors.ts and retry.ts read), but without the SDK's per-request machinery (header
// building, web streams, its layered SSE iterators), which cost more CPU than the rest of a round
// here. Server-sent events are parsed by eventsource-parser; each chunk is checked against the
// fields the client reads.
import type { Readable } from 'node:stream';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import { z } from 'zod';
import type { ModelTransport } from './model-transport.ts';

export interface ChatEndpoint {
  url: string;
  headers: Record<string, string>;
}

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** An event larger than this (a runaway server) fails the stream instead of filling memory. */
const MAX_EVENT_BYTES = 16 * 1024 * 1024;
/** The most of a plain-text error answer kept in the error's message. */
const MAX_ERROR_TEXT = 2_000;
/** How long the end of a finished answer may take to arrive before its connection is closed. */
const DRAIN_MS = 5_000;

/** Where completions go, with the headers the SDK sends (OPENAI_ORG_ID / OPENAI_PROJECT_ID as it reads them). */
export function chatEndpoint(options: { baseUrl?: string; apiKey?: string }, env: NodeJS.ProcessEnv = process.env): ChatEndpoint {
  return {
    url: `${(options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '')}/chat/completions`,
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      'user-agent': 'Parley',
      // Local servers (Ollama, vLLM) accept any key; many insist on the header.
      authorization: `Bearer ${options.apiKey ?? 'not-needed'}`,
      ...(env.OPENAI_ORG_ID ? { 'openai-organization': env.OPENAI_ORG_ID } : {}),
      ...(env.OPENAI_PROJECT_ID ? { 'openai-project': env.OPENAI_PROJECT_ID } : {}),
    },
  };
}

const text = z.string().nullish();
/** The parts of a chunk the client reads; other fields pass unchecked (servers add their own). */
const ChunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.unknown().optional(),
            // Some servers stream reasoning as `reasoning_content` (DeepSeek, Qwen), others as `reasoning`.
            reasoning_content: z.unknown().optional(),
            reasoning: z.unknown().optional(),
            // Loose: a call's other fields (Gemini's `extra_content`) are kept and sent back with it.
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().int().nonnegative().nullish(),
                  id: text,
                  function: z.object({ name: text, arguments: text }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: text,
      }),
    )
    .nullish(),
  usage: z
    .object({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      total_tokens: z.number().nullish(),
      // Cached input: OpenAI (and most) in prompt_tokens_details, DeepSeek as prompt_cache_hit_tokens.
      prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
      prompt_cache_hit_tokens: z.number().nullish(),
    })
    .nullish(),
});

type ChatChunk = z.infer<typeof ChunkSchema>;

/** What went wrong before any answer: the request was stopped, timed out, or never reached the server. */
function connectionError(error: unknown, signal: AbortSignal): APIError {
  if (signal.aborted) return Object.assign(new APIUserAbortError(), { cause: signal.reason });
  const described = `${String(error)} ${error instanceof Error && 'cause' in error ? String(error.cause) : ''}`;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || /timed? ?out/i.test(described)) {
    return Object.assign(new APIConnectionTimeoutError(), { cause: error });
  }
  const cause = error instanceof Error ? error : new Error(String(error));
  return new APIConnectionError({ message: `Connection error: ${cause.message}`, cause });
}

function chunkOf(event: EventSourceMessage, headers: Headers): ChatChunk {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
  }
  const reported = typeof data === 'object' && data !== null && 'error' in data ? data.error : undefined;
  if (event.event === 'error') throw new APIError(undefined, reported ?? data ?? undefined, undefined, headers);
  if (reported) throw new APIError(undefined, reported, undefined, headers);
  const parsed = ChunkSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SyntaxError(`Error reading response: not a chat completion chunk (${issue?.path.join('.') || 'chunk'}: ${issue?.message})`);
  }
  return parsed.data;
}

/**
 * An error answer's body as the SDK's error classes read it (`{ error: {...} }`), from the shapes
 * servers send: that one; a JSON array of them (Gemini: `[{"error": {...}}]`); an object without
 * `error` (`{"detail": ...}`, `{"message": ...}`); or plain text, kept as the message.
 */
function errorBody(answer: string): { json?: object; text?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer);
  } catch {
    const text = answer.trim().slice(0, MAX_ERROR_TEXT);
    return text ? { text } : {};
  }
  const item: unknown = Array.isArray(parsed) ? (parsed.find((entry) => isObject(entry) && 'error' in entry) ?? parsed[0]) : parsed;
  if (isObject(item) && item.error !== undefined && item.error !== null) return { json: item };
  if (isObject(item)) return { json: { error: item } };
  return { text: answer.trim().slice(0, MAX_ERROR_TEXT) };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Posts the request (`body`: its JSON, UTF-8) and yields the answer's chunks until `[DONE]` or the end of
 * the stream. `onStatus` is told of every 429 and 5xx answer. Leaving the loop early, or `signal`
 * aborting, closes the request.
 */
export async function* chatChunks(
  transport: ModelTransport,
  endpoint: ChatEndpoint,
  body: Uint8Array,
  signal: AbortSignal,
  onStatus?: (status: number) => void,
): AsyncGenerator<ChatChunk> {
  let response: Awaited<ReturnType<ModelTransport['post']>>;
  try {
    response = await transport.post(endpoint.url, endpoint.headers, body, signal);
  } catch (error) {
    throw connectionError(error, signal);
  }
  const { status, headers } = response;
  if (status === 429 || status >= 500) onStatus?.(status);
  if (status < 200 || status >= 300) {
    const { json, text: answer } = errorBody(await response.text());
    throw APIError.generate(status, json, answer, headers);
  }
  const stream = response.body;
  if (!stream) return;
  const events: EventSourceMessage[] = [];
  let tooLarge = false;
  const parser = createParser({
    onEvent: (event) => events.push(event),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') tooLarge = true;
    },
    maxBufferSize: MAX_EVENT_BYTES,
  });
  // undici's body does not honour setEncoding: its pieces are Buffers, whose characters may be split.
  const decoder = new TextDecoder();
  let ended = false;
  try {
    for await (const piece of stream.iterator({ destroyOnReturn: false })) {
      parser.feed(decoder.decode(piece as Uint8Array, { stream: true }));
      if (tooLarge) throw new SyntaxError(`Error reading response: a server-sent event exceeded ${MAX_EVENT_BYTES} bytes`);
      for (let i = 0; i < events.length; i++) {
        const event = events[i]!;
        if (event.data === '[DONE]') {
          ended = true;
          return;
        }
        yield chunkOf(event, headers);
      }
      events.length = 0;
    }
    ended = true;
  } finally {
    // The iterator has let go of the body: an error it emits from now on (its own destruction,
    // a cut connection while it drains) has no one to go to, and must not become an uncaught exception.
    stream.on('error', () => {});
    if (ended) drain(stream);
    else stream.destroy();
  }
}

/**
 * After `[DONE]`, the rest of the body (the end of the chunked encoding, usually) is read and
 * dropped, so that the connection serves the next request: a destroyed body closes it, and the
 * next round would connect (and shake hands) again. A server that goes on sending is cut off.
 */
function drain(stream: Readable): void {
  if (stream.readableEnded || stream.destroyed) return;
  const timer = setTimeout(() => stream.destroy(), DRAIN_MS);
  stream.once('close', () => clearTimeout(timer));
  stream.resume();
}
