// Provider profiles for the fake model server: how each provider streams a scripted answer
// (reasoning, text, tool calls), each quirk with where it was seen. model-shape.ts turns a profile
// and an answer into server-sent events; model-server.ts writes them.
import { randomBytes, randomUUID } from 'node:crypto';
import { plainUsage, type Shape, type ShapedStream, shapeFrames, type StreamPlan } from './model-shape.ts';

export type ProfileName =
  | 'openai'
  | 'vllm'
  | 'deepseek'
  | 'ollama'
  | 'gemini'
  | 'repeated-name'
  | 'index-zero'
  | 'azure'
  | 'openrouter'
  | 'llamacpp'
  | 'usage-every-chunk'
  | 'think-tags';

export const PROFILE_NAMES: readonly ProfileName[] = [
  'openai',
  'vllm',
  'deepseek',
  'ollama',
  'gemini',
  'repeated-name',
  'index-zero',
  'azure',
  'openrouter',
  'llamacpp',
  'usage-every-chunk',
  'think-tags',
];

const alnum = (n: number) => randomBytes(n).toString('base64url').replace(/[-_]/g, 'x').slice(0, n);
const hex = (n: number) =>
  randomBytes(Math.ceil(n / 2))
    .toString('hex')
    .slice(0, n);

// OpenAI (platform.openai.com streaming reference and its cookbook "How to stream completions"):
// the first delta is {role:'assistant', content:''} for text, and {role:'assistant', content:null}
// merged with the first tool call fragment for a tool call answer; every fragment has `index`,
// only the first has id/type/name; arguments arrive a few characters at a time; the finish chunk
// has an empty delta; with stream_options.include_usage every chunk has `usage: null` and a last
// chunk has `choices: []` and the usage (with prompt_tokens_details.cached_tokens).
const OPENAI: Shape = {
  pieceSize: 4,
  chunkFields: { system_fingerprint: 'fp_fake0openai', service_tier: 'default' },
  choiceFields: () => ({ logprobs: null }),
  opening: (plan) =>
    plan.text
      ? { delta: { role: 'assistant', content: '', refusal: null }, merge: false }
      : { delta: { role: 'assistant', content: null, refusal: null }, merge: true },
  reasoning: 'hidden', // OpenAI's chat completions do not stream the reasoning of o-series models.
  toolCalls: 'indexed',
  callId: () => `call_${alnum(24)}`,
  toolFinish: 'tool_calls',
  finish: 'own-chunk',
  finishDelta: {},
  usage: 'final-chunk',
  usageFields: (u) => ({
    ...plainUsage(u),
    prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  }),
  usageNullUntilEnd: true,
  done: true,
};

// vLLM (vllm/entrypoints/openai/serving_chat.py and tool_parsers/hermes_tool_parser.py): a first
// chunk {role:'assistant', content:''} of its own; the first tool call fragment is
// {index, id:'chatcmpl-tool-<hex>', type, function:{name}} (no `arguments` key: the delta is dumped
// with exclude_none), then argument pieces by index; reasoning as `reasoning_content` with a
// reasoning parser; a `choices: []` usage chunk with include_usage.
const VLLM: Shape = {
  ...OPENAI,
  chunkFields: {},
  choiceFields: () => ({ logprobs: null }),
  opening: () => ({ delta: { role: 'assistant', content: '' }, merge: false }),
  reasoning: 'reasoning_content',
  toolCalls: 'indexed-name-only',
  callId: () => `chatcmpl-tool-${hex(32)}`,
  usageFields: plainUsage,
  usageNullUntilEnd: false,
};

// DeepSeek (api-docs.deepseek.com: "Reasoning Model (deepseek-reasoner)", "Context Caching",
// "Rate Limit"): `reasoning_content` streams before the answer with `content: null`, then content
// with `reasoning_content: null`; usage has prompt_cache_hit_tokens / prompt_cache_miss_tokens (and
// prompt_tokens_details.cached_tokens) in a `choices: []` chunk; while a request waits under load
// the stream carries `: keep-alive` comments.
const DEEPSEEK: Shape = {
  ...OPENAI,
  chunkFields: { system_fingerprint: 'fp_fake_prod0820_fp8_kvcache' },
  opening: (plan) => ({
    delta: plan.reasoning ? { role: 'assistant', content: null, reasoning_content: '' } : { role: 'assistant', content: '' },
    merge: false,
  }),
  reasoning: 'reasoning_content',
  reasoningDelta: { content: null },
  textDelta: { reasoning_content: null },
  callId: () => `call_0_${randomUUID()}`,
  finishDelta: { content: '', reasoning_content: null },
  usageFields: (u) => ({
    ...plainUsage(u),
    prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
    prompt_cache_hit_tokens: u.cached_tokens ?? 0,
    prompt_cache_miss_tokens: u.prompt_tokens - (u.cached_tokens ?? 0),
  }),
  usageNullUntilEnd: false,
  comments: { text: ' keep-alive', before: 1 },
};

// Ollama (ollama/ollama openai/openai.go ToChunk; chunk captures in g0t4/ask-openai.nvim
// lua/ask-openai/backends/ollama/notes/sses.md): every delta carries role 'assistant'; each tool
// call comes whole in one chunk (id 'call_<8 chars>', index, name, all its arguments); before
// ollama/ollama#7963 the streamed answer finished with "stop" although it made tool calls, and
// proxies still do (BerriAI/litellm#35663: tool_calls arrive in a chunk apart from the done one).
// Reasoning as `delta.reasoning`.
const OLLAMA: Shape = {
  ...OPENAI,
  pieceSize: 8,
  chunkFields: { system_fingerprint: 'fp_ollama' },
  choiceFields: () => ({}),
  deltaFields: { role: 'assistant' },
  opening: undefined,
  reasoning: 'reasoning',
  textDelta: {},
  toolCalls: 'whole',
  callId: () => `call_${alnum(8).toLowerCase()}`,
  toolFinish: 'stop',
  finishDelta: { content: '' },
  usageFields: plainUsage,
  usageNullUntilEnd: false,
};

// Gemini's OpenAI-compatible endpoint (AstrBotDevs/AstrBot#6661, noho/dayu-agent#45 and #91,
// open-webui/computer#224, googleapis/python-genai#2868, openai/openai-agents-python#2137):
// tool call deltas have no `index`; each call comes whole, several parallel calls can share one
// chunk (each with its own id), or come one per chunk; each call carries
// extra_content.google.thought_signature (real Gemini 3 puts it on the first call of a step; the
// fake signs every call so that each one's round trip is checked), which must come back with the
// call or the next request is refused (400); a streamed tool call answer finishes with "stop";
// the finish_reason rides on the answer's last chunk (here with the usage, when asked for).
const GEMINI: Shape = {
  ...OPENAI,
  pieceSize: 16,
  chunkFields: {},
  choiceFields: () => ({}),
  deltaFields: { role: 'assistant' },
  opening: undefined,
  reasoning: 'hidden', // thoughts are only sent when asked for (extra_body.google.thinking_config).
  textDelta: {},
  toolCalls: 'gemini',
  callId: (_name, serial) => `function-call-${serial}`,
  toolFinish: 'stop',
  finish: 'last-chunk',
  usage: 'on-finish',
  usageFields: plainUsage,
  usageNullUntilEnd: false,
};

// MiniMax on NVIDIA NIM, Fireworks and Kimi (NousResearch/hermes-agent#8259, #8089, #12233):
// id, type and function.name are repeated in every argument chunk (a client that appends names
// gets "search_filessearch_files"); Kimi's ids look like 'functions.search_files:99'.
const REPEATED_NAME: Shape = {
  ...VLLM,
  toolCalls: 'repeated',
  callId: (name, serial) => `functions.${name}:${serial}`,
};

// Proxies that turn Gemini's parallel function calls into OpenAI chunks one call per chunk, each
// whole, with its own id but `index: 0` on every one (QuantumNous/new-api#2701, su-kaka/gcli2api#406):
// a client that goes by index alone merges them into one call with concatenated arguments.
const INDEX_ZERO: Shape = {
  ...VLLM,
  toolCalls: 'whole',
  indexZero: true,
  callId: () => `call_${hex(24)}`,
  textDelta: {},
};

const AZURE_FILTER = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

// Azure OpenAI (learn.microsoft.com "Content filtering" and "Content streaming"; Microsoft Q&A
// 1533887 "I'm getting an empty choices array"): the first chunk has `choices: []`, empty
// id/model, and `prompt_filter_results`; choices carry `content_filter_results` (empty on the role
// and finish chunks).
const AZURE: Shape = {
  ...OPENAI,
  chunkFields: { system_fingerprint: 'fp_fake0azure' },
  choiceFields: (part) => ({ logprobs: null, content_filter_results: part === 'text' ? AZURE_FILTER : {} }),
  prelude: () => [
    {
      choices: [],
      created: 0,
      id: '',
      model: '',
      object: '',
      prompt_filter_results: [
        { prompt_index: 0, content_filter_results: { ...AZURE_FILTER, jailbreak: { filtered: false, detected: false } } },
      ],
    },
  ],
  usageNullUntilEnd: false,
};

// OpenRouter (openrouter.ai/docs/api-reference/streaming, and errors: "Handling errors during
// streaming"): SSE comments `: OPENROUTER PROCESSING` before and between chunks; reasoning as
// `delta.reasoning` (with `reasoning_details`); every delta carries the role; chunks name the
// `provider`, choices a `native_finish_reason`; an error after the answer started comes as a data
// event with an `error` object and finish_reason "error" (midStreamErrorFrames).
const OPENROUTER: Shape = {
  ...OPENAI,
  chunkFields: { provider: 'FakeProvider' },
  choiceFields: (_part, finish) => ({ logprobs: null, native_finish_reason: finish }),
  deltaFields: { role: 'assistant' },
  opening: undefined,
  reasoning: 'reasoning',
  reasoningDelta: { content: '' },
  reasoningDetails: true,
  textDelta: {},
  callId: () => `call_${alnum(24)}`,
  usageFields: (u) => ({ ...plainUsage(u), cost: 0.0001, is_byok: false }),
  usageNullUntilEnd: false,
  comments: { text: ' OPENROUTER PROCESSING', before: 2, every: 2 },
};

// llama.cpp's server (tools/server; the finish chunk with `usage` and `timings` in
// ggml-org/llama.cpp#12137) and servers built on it (ikawrakow/ik_llama.cpp#467,
// gpustack/llama-box#2): the stream ends after the finish chunk without `data: [DONE]`.
const LLAMACPP: Shape = {
  ...VLLM,
  opening: () => ({ delta: { role: 'assistant', content: null }, merge: false }),
  callId: () => alnum(32),
  usage: 'on-finish',
  usageAlways: true,
  timings: true,
  done: false,
};

// vLLM with stream_options.continuous_usage_stats (vllm-project/vllm#6652) or a proxy that forces
// it (vllm-project/vllm#43965, sgl-project/sglang#12241): every chunk has the usage so far
// (cumulative, not per chunk), and the `choices: []` chunk ends it with include_usage.
const USAGE_EVERY_CHUNK: Shape = { ...VLLM, usage: 'every-chunk' };

// A reasoning model served without a reasoning parser (vllm-project/vllm#26239, #45687,
// QwenLM/Qwen3#1334): `<think>...</think>` at the start of `content`, its tags split across chunks
// as tokens fall ('<thi' + 'nk>'), then the answer.
const THINK_TAGS: Shape = { ...VLLM, reasoning: 'think-tags' };

const SHAPES: Record<ProfileName, Shape> = {
  openai: OPENAI,
  vllm: VLLM,
  deepseek: DEEPSEEK,
  ollama: OLLAMA,
  gemini: GEMINI,
  'repeated-name': REPEATED_NAME,
  'index-zero': INDEX_ZERO,
  azure: AZURE,
  openrouter: OPENROUTER,
  llamacpp: LLAMACPP,
  'usage-every-chunk': USAGE_EVERY_CHUNK,
  'think-tags': THINK_TAGS,
};
/** The scripted answer as the profile's provider streams it. */
export function shapeStream(profile: ProfileName, plan: StreamPlan): ShapedStream {
  return shapeFrames(SHAPES[profile], plan);
}

/**
 * An error body as Gemini's OpenAI-compatible endpoint sends it: a JSON array of one error
 * (FuzzAnything/PromptFuzz#42, Simpleyyt/ai-manus#101, bytedance/deer-flow#1515).
 */
export function geminiErrorBody(message: string, code = 400, status = 'INVALID_ARGUMENT'): unknown[] {
  return [{ error: { code, message, status } }];
}

/** The message real Gemini 3 gives when a call comes back without its signature (theopenco/llmgateway#1267). */
function missingSignatureMessage(name: string, position: number): string {
  return (
    'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, ' +
    `and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , ` +
    `position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`
  );
}

/** A request's tool call as the server reads it back from the history. */
interface ReturnedCall {
  id: string;
  extra_content?: { google?: { thought_signature?: string } };
}

/**
 * Why Gemini 3 would refuse a request: a call it signed came back without that signature
 * (openai/openai-agents-python#2137; "Function call is missing a thought_signature").
 */
export function signatureRefusal(
  messages: readonly { role: string; tool_calls?: readonly ReturnedCall[] }[],
  issued: ReadonlyMap<string, { name: string; signature: string }>,
): string | undefined {
  if (issued.size === 0) return undefined;
  for (const [position, message] of messages.entries()) {
    for (const call of message.role === 'assistant' ? (message.tool_calls ?? []) : []) {
      const given = issued.get(call.id);
      if (!given) continue;
      const returned = call.extra_content?.google?.thought_signature;
      if (returned === undefined) return missingSignatureMessage(given.name, position + 1);
      if (returned !== given.signature) return `Corrupted thought signature for function call \`default_api:${given.name}\`.`;
    }
  }
  return undefined;
}
