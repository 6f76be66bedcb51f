// The engine behind the fake model server's provider profiles (model-profiles.ts): a scripted
// answer (reasoning, text, tool calls) and a provider's Shape in, the server-sent events out, as
// frames the server (model-server.ts) writes: `data:` events and SSE comments.
import { randomBytes } from 'node:crypto';

/** One thing written on the stream: a `data:` event, or an SSE comment line. */
export type Frame = { kind: 'data'; data: unknown; answer?: boolean; finish?: boolean } | { kind: 'comment'; text: string };

interface PlannedCall {
  name: string;
  /** Raw JSON text, sent as is (may be empty or invalid). */
  arguments: string;
  /** Set by the step; otherwise the profile makes one in its provider's style. */
  id?: string;
}

export interface StreamPlan {
  /** The completion id every chunk carries. */
  id: string;
  model: string;
  text: string;
  reasoning: string;
  calls: PlannedCall[];
  /** The step's own finish_reason (else the profile's). */
  finishReason?: string;
  usage: UsageScript;
  /** The request asked for `stream_options.include_usage`. */
  includeUsage: boolean;
  chunkSize?: number;
  /** Gemini: one chunk per call instead of every call in one chunk. */
  splitCalls?: boolean;
  /** A number unique within the server, for tool call ids. */
  serial: () => number;
}

export interface UsageScript {
  prompt_tokens: number;
  completion_tokens: number;
  /** Prompt tokens served from the provider's cache (DeepSeek: prompt_cache_hit_tokens). */
  cached_tokens?: number;
}

/** A signature handed out with a Gemini tool call, to be checked when the call comes back. */
export interface IssuedSignature {
  id: string;
  name: string;
  signature: string;
}

export interface ShapedStream {
  frames: Frame[];
  /** Whether `data: [DONE]` follows the frames. */
  done: boolean;
  signatures: IssuedSignature[];
}

type Delta = Record<string, unknown>;
type Part = 'opening' | 'reasoning' | 'text' | 'tool' | 'finish';

/** How one provider streams: what the engine below needs to know of it. */
export interface Shape {
  /** Default characters per delta (text, reasoning and argument pieces). */
  pieceSize: number;
  /** Fields every chunk carries besides id/object/created/model/choices. */
  chunkFields?: Record<string, unknown>;
  /** Fields on a chunk's choice besides index/delta/finish_reason, by what the chunk carries. */
  choiceFields?: (part: Part, finish: string | null) => Record<string, unknown>;
  /** Fields every delta carries (Ollama and Gemini repeat the role in each one). */
  deltaFields?: Delta;
  /** The first delta; `merge`: sent with the first tool call fragment when there is no text. */
  opening?: (plan: StreamPlan) => { delta: Delta; merge: boolean } | undefined;
  reasoning: 'reasoning_content' | 'reasoning' | 'think-tags' | 'hidden';
  /** Extra fields on reasoning and text deltas (DeepSeek nulls the other one). */
  reasoningDelta?: Delta;
  /** OpenRouter also sends each reasoning piece as `reasoning_details`. */
  reasoningDetails?: boolean;
  textDelta?: Delta;
  toolCalls: 'indexed' | 'indexed-name-only' | 'repeated' | 'whole' | 'gemini';
  /** Every call says `index: 0` (with its own id). */
  indexZero?: boolean;
  callId: (name: string, serial: number) => string;
  /** finish_reason of a message with tool calls. */
  toolFinish: 'tool_calls' | 'stop';
  /** The finish_reason on a chunk of its own, or on the last chunk of the answer. */
  finish: 'own-chunk' | 'last-chunk';
  finishDelta?: Delta;
  usage: 'final-chunk' | 'on-finish' | 'every-chunk';
  /** Usage (and llama.cpp's timings) sent whether or not the request asked for it. */
  usageAlways?: boolean;
  timings?: boolean;
  usageFields?: (usage: UsageScript) => Record<string, unknown>;
  /** With include_usage, every chunk but the usage chunk says `usage: null`. */
  usageNullUntilEnd?: boolean;
  /** Data frames sent before the answer (Azure's prompt filter results). */
  prelude?: (plan: StreamPlan) => unknown[];
  /** SSE comments: before the first chunk, and one after every `every` data frames. */
  comments?: { text: string; before: number; every?: number };
  done: boolean;
}

const created = () => Math.floor(Date.now() / 1000);

export const plainUsage = (u: UsageScript) => ({
  prompt_tokens: u.prompt_tokens,
  completion_tokens: u.completion_tokens,
  total_tokens: u.prompt_tokens + u.completion_tokens,
});

export function split(text: string, size: number): string[] {
  const out: string[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** The scripted answer as a provider of this shape streams it. */
export function shapeFrames(shape: Shape, plan: StreamPlan): ShapedStream {
  const size = plan.chunkSize ?? shape.pieceSize;
  const frames: Frame[] = [];
  const signatures: IssuedSignature[] = [];
  const calls = plan.calls.map((call) => ({ ...call, id: call.id ?? shape.callId(call.name, plan.serial()) }));
  const finishReason = plan.finishReason ?? (calls.length ? shape.toolFinish : 'stop');
  let dataFrames = 0;
  let emitted = 0;

  const usageNow = (fraction: number) =>
    (shape.usageFields ?? plainUsage)({
      ...plan.usage,
      completion_tokens: Math.round(plan.usage.completion_tokens * fraction),
    });
  const envelope = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: plan.id,
    object: 'chat.completion.chunk',
    created: created(),
    model: plan.model,
    ...shape.chunkFields,
    choices,
    ...(shape.usageNullUntilEnd && plan.includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const push = (frame: Frame) => {
    frames.push(frame);
    if (frame.kind !== 'data') return;
    dataFrames++;
    if (shape.comments?.every && dataFrames % shape.comments.every === 0) frames.push({ kind: 'comment', text: shape.comments.text });
  };
  // The answer's deltas, then the chunks around them.
  const deltas: { part: Part; delta: Delta }[] = [];

  const opening = shape.opening?.(plan);
  let pendingOpening = opening?.merge ? opening.delta : undefined;
  if (opening && !opening.merge) deltas.push({ part: 'opening', delta: opening.delta });
  if (opening?.merge && calls.length === 0) deltas.push({ part: 'opening', delta: opening.delta });

  if (plan.reasoning && shape.reasoning === 'think-tags') {
    for (const piece of ['<thi', 'nk>', ...split(`${plan.reasoning}</think>\n\n${plan.text}`, size)]) {
      deltas.push({ part: 'text', delta: { content: piece } });
    }
  } else {
    if (plan.reasoning && shape.reasoning !== 'hidden' && shape.reasoning !== 'think-tags') {
      for (const piece of split(plan.reasoning, size)) {
        const delta: Delta = { ...shape.reasoningDelta, [shape.reasoning]: piece };
        if (shape.reasoningDetails) delta.reasoning_details = [{ type: 'reasoning.text', text: piece, format: 'unknown', index: 0 }];
        deltas.push({ part: 'reasoning', delta });
      }
    }
    for (const piece of split(plan.text, size)) deltas.push({ part: 'text', delta: { content: piece, ...shape.textDelta } });
  }

  const withOpening = (fragment: Delta): Delta => {
    if (!pendingOpening) return fragment;
    const merged = { ...pendingOpening, ...fragment };
    pendingOpening = undefined;
    return merged;
  };
  if (shape.toolCalls === 'gemini') {
    const entries = calls.map((call) => {
      const signature = randomBytes(48).toString('base64');
      signatures.push({ id: call.id, name: call.name, signature });
      return {
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
        extra_content: { google: { thought_signature: signature } },
      };
    });
    const groups = plan.splitCalls ? entries.map((entry) => [entry]) : entries.length ? [entries] : [];
    for (const group of groups) deltas.push({ part: 'tool', delta: { tool_calls: group } });
  } else {
    for (const [index, call] of calls.entries()) {
      const head = { index: shape.indexZero ? 0 : index, id: call.id, type: 'function' };
      const pieces = split(call.arguments, size);
      if (shape.toolCalls === 'whole') {
        deltas.push({
          part: 'tool',
          delta: { content: '', tool_calls: [{ ...head, function: { name: call.name, arguments: call.arguments } }] },
        });
      } else if (shape.toolCalls === 'repeated') {
        for (const piece of pieces.length ? pieces : ['']) {
          deltas.push({ part: 'tool', delta: withOpening({ tool_calls: [{ ...head, function: { name: call.name, arguments: piece } }] }) });
        }
      } else {
        const fn = shape.toolCalls === 'indexed-name-only' ? { name: call.name } : { name: call.name, arguments: '' };
        deltas.push({ part: 'tool', delta: withOpening({ tool_calls: [{ ...head, function: fn }] }) });
        for (const piece of pieces) deltas.push({ part: 'tool', delta: { tool_calls: [{ index, function: { arguments: piece } }] } });
      }
    }
  }

  for (let i = 0; i < (shape.comments?.before ?? 0); i++) frames.push({ kind: 'comment', text: shape.comments!.text });
  for (const data of shape.prelude?.(plan) ?? []) push({ kind: 'data', data });

  const choice = (part: Part, delta: Delta, finish: string | null) => ({
    index: 0,
    delta: { ...shape.deltaFields, ...delta },
    ...shape.choiceFields?.(part, finish),
    finish_reason: finish,
  });
  const count = deltas.length + (shape.finish === 'own-chunk' || deltas.length === 0 ? 1 : 0);
  const everyChunkUsage = () => (shape.usage === 'every-chunk' ? { usage: usageNow(++emitted / count) } : {});
  const finishUsage = () =>
    shape.usage === 'on-finish' && (plan.includeUsage || shape.usageAlways)
      ? {
          usage: usageNow(1),
          ...(shape.timings ? { timings: { prompt_n: plan.usage.prompt_tokens, predicted_n: plan.usage.completion_tokens } } : {}),
        }
      : {};

  for (const [i, { part, delta }] of deltas.entries()) {
    const last = i === deltas.length - 1 && shape.finish === 'last-chunk';
    push({
      kind: 'data',
      data: envelope([choice(part, delta, last ? finishReason : null)], { ...everyChunkUsage(), ...(last ? finishUsage() : {}) }),
      answer: part === 'text' || part === 'tool',
      finish: last,
    });
  }
  if (shape.finish === 'own-chunk' || deltas.length === 0) {
    push({
      kind: 'data',
      data: envelope([choice('finish', shape.finishDelta ?? {}, finishReason)], { ...everyChunkUsage(), ...finishUsage() }),
      finish: true,
    });
  }
  if (plan.includeUsage && (shape.usage === 'final-chunk' || shape.usage === 'every-chunk')) {
    push({ kind: 'data', data: { ...envelope([]), usage: usageNow(1) } });
  }
  return { frames, done: shape.done, signatures };
}
/**
 * An error after the answer started, as OpenRouter sends it (openrouter.ai/docs/api-reference/errors,
 * "Error handling during streaming"): HTTP 200 already went out, so the error is a data event with an
 * `error` object and a choice finishing with "error"; the stream then ends.
 */
export function midStreamErrorFrames(plan: { id: string; model: string; before: string; error: MidStreamError }): Frame[] {
  const base = { id: plan.id, object: 'chat.completion.chunk', created: created(), model: plan.model, provider: 'FakeProvider' };
  const frames: Frame[] = [{ kind: 'comment', text: ' OPENROUTER PROCESSING' }];
  for (const piece of split(plan.before, 8)) {
    frames.push({
      kind: 'data',
      data: {
        ...base,
        choices: [{ index: 0, delta: { role: 'assistant', content: piece }, finish_reason: null, native_finish_reason: null }],
      },
      answer: true,
    });
  }
  frames.push({ kind: 'comment', text: ' OPENROUTER PROCESSING' });
  frames.push({
    kind: 'data',
    data: {
      ...base,
      error: {
        code: plan.error.code ?? 'server_error',
        message: plan.error.message,
        ...(plan.error.metadata ? { metadata: plan.error.metadata } : {}),
      },
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error', native_finish_reason: 'error' }],
    },
  });
  return frames;
}

export interface MidStreamError {
  message: string;
  code?: number | string;
  metadata?: Record<string, unknown>;
}
