// An OpenAI-compatible chat completions server on 127.0.0.1 that streams scripted responses as
// real `chat.completion.chunk` server-sent events: text deltas, reasoning deltas, tool-call
// deltas split across chunks, a usage chunk, HTTP errors with Retry-After, malformed chunks, and
// streams that hang until the client goes away. With setEmbedder it also serves /embeddings.
// A provider profile (model-profiles.ts; per step or server-wide) streams a step the way that
// provider does: Gemini's index-less calls with thought signatures (and its 400 when one does not
// come back), Ollama's whole calls, OpenRouter's comments, llama.cpp's missing [DONE], ...
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { geminiErrorBody, type ProfileName, shapeStream, signatureRefusal } from './model-profiles.ts';
import { type Frame, type IssuedSignature, type MidStreamError, midStreamErrorFrames, split } from './model-shape.ts';

export type { ProfileName } from './model-profiles.ts';

interface ScriptedToolCall {
  id?: string;
  name: string;
  /** An object is JSON-encoded; a string is sent as is (use it for invalid JSON). */
  arguments: unknown;
}

export interface TextStep {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  finishReason?: string;
  /** Characters per delta chunk (default 8). */
  chunkSize?: number;
  /** Pause between chunks. */
  delayMs?: number;
  /** Pause before the first chunk (a model that takes a while to start answering). */
  firstChunkDelayMs?: number;
  /** Pause after the first content chunk until this settles (to act mid-stream). */
  hold?: Promise<unknown>;
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
  /** Stream it as this provider does ('plain': this server's own idealised shape). Default: the server's. */
  profile?: ProfileName | 'plain';
  /** Cut the connection right after the finish chunk: no usage chunk, no [DONE], no end of the body (a proxy that closes early). */
  cutAfterFinish?: boolean;
  /** Gemini profile: one chunk per tool call instead of all of them in one chunk. */
  splitCalls?: boolean;
}

export interface ErrorStep {
  status: number;
  retryAfter?: string;
  /** JSON-encoded (an array is sent as an array). */
  body?: unknown;
  /** Sent as is, as text/plain, instead of `body` (a proxy's HTML or text error page). */
  text?: string;
}

/** Content, then an error object as a `data:` event, HTTP 200 all along (OpenRouter's mid-stream error). */
interface MidStreamErrorStep {
  midStreamError: MidStreamError;
  /** Text streamed before the error. */
  before?: string;
}

interface MalformedStep {
  malformed: true;
  /** Text sent in good chunks before the bad one. */
  before?: string;
}

/** Streams `text` first (if any), then never finishes until the client disconnects. */
interface HangStep {
  hang: true;
  text?: string;
}

export type Step = TextStep | ErrorStep | MalformedStep | HangStep | MidStreamErrorStep;

/** A part of a user message's content, as the chat completions API takes it. */
type RecordedPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } };

/**
 * How real servers refuse image input from a model that cannot see (the request is refused before
 * the model runs; the script's next step stays queued):
 * - openai: 400 `Invalid content type. image_url is only supported by certain models.` (param
 *   messages.[i].content.[j].type), e.g. gpt-3.5-turbo (vllm-project/vllm#11629, browser-use/web-ui#274);
 * - deepseek: 400 `Failed to deserialize the JSON body into the target type: messages[1]: unknown
 *   variant \`image_url\`, expected \`text\` at line 1 column …` (rikkahub/rikkahub#1433);
 * - ollama: 400 `this model does not support image input` (ollama/ollama#17301);
 * - llamacpp: 500 `image input is not supported - hint: if this is unexpected, you may need to
 *   provide the mmproj`, type server_error (ggml-org/llama.cpp#15377).
 */
export type ImageRefusal = 'openai' | 'deepseek' | 'ollama' | 'llamacpp';

/** One POST /audio/transcriptions, as its multipart form came. */
export interface TranscriptionRequest {
  model: string | undefined;
  filename: string | undefined;
  mime: string | undefined;
  bytes: Buffer;
  responseFormat: string | undefined;
  authorization: string | undefined;
}
export type Responder = (request: RecordedRequest) => Step;

export interface RecordedRequest {
  body: {
    model: string;
    messages: {
      role: string;
      /** The text; for a message sent as parts (text and image_url), its text parts joined. */
      content: string | null;
      /** The parts, as sent, of a message whose content was a list (see `raw` for the body as it came). */
      parts?: RecordedPart[];
      tool_calls?: {
        id: string;
        type?: string;
        function: { name: string; arguments: string };
        /** Gemini: must come back as it was given (extra_content.google.thought_signature). */
        extra_content?: { google?: { thought_signature?: string } };
      }[];
      tool_call_id?: string;
    }[];
    tools?: { type: string; function: { name: string; description: string; parameters: unknown } }[];
    tool_choice?: unknown;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
  };
  headers: IncomingMessage['headers'];
  receivedAt: number;
  /** The body as it came (e.g. to see whether `stream_options` was sent at all). */
  raw: string;
  /** What this server answered: a status (200 for a stream) and, for a refusal, why. */
  answer?: { status: number; refusal?: string };
}

export interface FakeModelServerOptions {
  /** The profile every stream uses unless its step says otherwise (default: 'plain'). */
  profile?: ProfileName | 'plain';
}

export class FakeModelServer {
  readonly requests: RecordedRequest[] = [];
  /** POST /embeddings requests: the texts each one asked for. */
  readonly embeddingRequests: { model: string; input: string[]; receivedAt: number }[] = [];
  #embed: ((text: string) => number[]) | undefined;
  #models: string[] | ErrorStep | undefined;
  /** GET /models requests (see setModels). */
  readonly modelListRequests: { authorization: string | undefined }[] = [];
  #embeddingStatus: number | undefined;
  readonly #queue: (Step | Responder)[] = [];
  /** POST /audio/transcriptions requests (see setTranscriber). */
  readonly transcriptionRequests: TranscriptionRequest[] = [];
  #transcribe: ((request: TranscriptionRequest) => string | ErrorStep) | undefined;
  #refuseImages: ImageRefusal | undefined;
  #fallback: Responder | undefined;
  readonly #server: Server;
  #port = 0;
  #id = 0;
  #serial = 0;
  readonly #profile: ProfileName | 'plain';
  /** Thought signatures handed out with Gemini tool calls, by call id. */
  readonly #signatures = new Map<string, IssuedSignature>();

  private constructor(options: FakeModelServerOptions) {
    this.#profile = options.profile ?? 'plain';
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  static async start(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
    const fake = new FakeModelServer(options);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  /** Base URL as OPENAI_BASE_URL expects it. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}/v1`;
  }

  /** Queue responses, used in order, one per request. */
  enqueue(...steps: (Step | Responder)[]): this {
    this.#queue.push(...steps);
    return this;
  }

  /** Used when the queue is empty (default: a 500 saying the script ran out). */
  setFallback(responder: Responder | undefined): this {
    this.#fallback = responder;
    return this;
  }

  /** Serves POST /embeddings with `embed(text)` per input (unset: 404, like a server without embeddings). */
  setEmbedder(embed: ((text: string) => number[]) | undefined): this {
    this.#embed = embed;
    return this;
  }

  /** Answers every embeddings request with this HTTP status until cleared (undefined). */
  failEmbeddings(status: number | undefined): this {
    this.#embeddingStatus = status;
    return this;
  }

  /**
   * Serves GET /models: these model ids, or this error answer (unset: 404, a server without the
   * list). Requests are recorded in `modelListRequests` (their authorization header).
   */
  setModels(models: string[] | ErrorStep | undefined): this {
    this.#models = models;
    return this;
  }

  #modelList(req: IncomingMessage, res: ServerResponse, models: string[] | ErrorStep): void {
    this.modelListRequests.push({ authorization: req.headers.authorization });
    if (!Array.isArray(models)) {
      this.#error(res, models);
      return;
    }
    const data = models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
  }

  /**
   * Serves POST /audio/transcriptions like OpenAI's: a multipart form with `file` and `model`
   * (400 without either), answering `{ "text": ... }` with what `transcribe` returns (or that
   * error). Unset: 404, like a server without the endpoint.
   */
  setTranscriber(transcribe: ((request: TranscriptionRequest) => string | ErrorStep) | undefined): this {
    this.#transcribe = transcribe;
    return this;
  }

  /** Refuses every chat request that carries an image_url part, the way `style`'s server does (undefined: accepts images). */
  refuseImages(style: ImageRefusal | undefined): this {
    this.#refuseImages = style;
    return this;
  }

  get pending(): number {
    return this.#queue.length;
  }

  /** The thought signatures handed out so far (Gemini profile), by tool call id. */
  get signatures(): ReadonlyMap<string, IssuedSignature> {
    return this.#signatures;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === 'POST' && req.url?.endsWith('/embeddings') && this.#embed) return this.#embeddings(Buffer.concat(chunks), res);
    if (req.method === 'GET' && req.url?.endsWith('/models') && this.#models) return this.#modelList(req, res, this.#models);
    if (req.method === 'POST' && req.url?.endsWith('/audio/transcriptions') && this.#transcribe) {
      return this.#transcription(req, Buffer.concat(chunks), res);
    }
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    const recorded: RecordedRequest = { body: withPartsApart(JSON.parse(raw)), headers: req.headers, receivedAt: Date.now(), raw };
    this.requests.push(recorded);
    // Like Gemini 3: a call it signed must come back with its signature, or the request is refused
    // before the model runs (the script's next step stays queued).
    const refusal = signatureRefusal(recorded.body.messages, this.#signatures);
    if (refusal) {
      recorded.answer = { status: 400, refusal };
      return this.#error(res, { status: 400, body: geminiErrorBody(refusal) });
    }
    const imageRefusal =
      this.#refuseImages && imagePartsOf(recorded).length > 0 ? imageRefusalStep(this.#refuseImages, recorded) : undefined;
    if (imageRefusal) {
      recorded.answer = { status: imageRefusal.status, refusal: 'image input' };
      return this.#error(res, imageRefusal);
    }
    recorded.answer = { status: 200 };
    const next = this.#queue.shift() ?? this.#fallback;
    const step: Step = !next
      ? { status: 500, body: { error: { message: 'fake model: script exhausted', type: 'server_error' } } }
      : typeof next === 'function'
        ? next(recorded)
        : next;
    if ('status' in step) {
      recorded.answer = { status: step.status };
      return this.#error(res, step);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    if ('malformed' in step) {
      const id = this.#nextId();
      this.#send(res, this.#chunk(id, recorded, { role: 'assistant', content: step.before ?? '' }));
      res.write('data: {"id": "broken", "choices": [{"delta": {"content": "oops"\n\n');
      res.end();
      return;
    }
    if ('hang' in step) {
      const id = this.#nextId();
      this.#send(res, this.#chunk(id, recorded, { role: 'assistant', content: step.text ?? '' }));
      await new Promise<void>((resolve) => res.on('close', () => resolve()));
      return;
    }
    if ('midStreamError' in step) {
      const frames = midStreamErrorFrames({
        id: this.#nextId(),
        model: recorded.body.model,
        before: step.before ?? '',
        error: step.midStreamError,
      });
      await this.#write(res, frames, {});
      res.end();
      return;
    }
    const profile = step.profile ?? this.#profile;
    if (profile === 'plain') await this.#stream(res, recorded, step);
    else await this.#profiled(res, recorded, step, profile);
  }

  async #transcription(req: IncomingMessage, raw: Buffer, res: ServerResponse): Promise<void> {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    let form: FormData;
    try {
      form = await new Request('http://fake/audio/transcriptions', { method: 'POST', headers, body: raw }).formData();
    } catch {
      this.#error(res, { status: 400, body: { error: { message: 'Could not parse multipart form', type: 'invalid_request_error' } } });
      return;
    }
    const file = form.get('file');
    const model = form.get('model');
    const request: TranscriptionRequest = {
      model: typeof model === 'string' ? model : undefined,
      filename: file instanceof File ? file.name : undefined,
      mime: file instanceof File ? file.type : undefined,
      bytes: file instanceof File ? Buffer.from(await file.arrayBuffer()) : Buffer.alloc(0),
      responseFormat: typeof form.get('response_format') === 'string' ? (form.get('response_format') as string) : undefined,
      authorization: req.headers.authorization,
    };
    this.transcriptionRequests.push(request);
    // OpenAI's answers to a form without them.
    if (!request.model) {
      this.#error(res, {
        status: 400,
        body: { error: { message: 'you must provide a model parameter', type: 'invalid_request_error', param: null, code: null } },
      });
      return;
    }
    if (!(file instanceof File)) {
      this.#error(res, {
        status: 400,
        body: {
          error: {
            message: '1 validation error for Request\nbody -> file\n  field required (type=value_error.missing)',
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        },
      });
      return;
    }
    const answer = this.#transcribe!(request);
    if (typeof answer !== 'string') {
      this.#error(res, answer);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: answer }));
  }

  #embeddings(raw: Buffer, res: ServerResponse): void {
    const body = JSON.parse(raw.toString('utf8')) as { model: string; input: string | string[] };
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    this.embeddingRequests.push({ model: body.model, input, receivedAt: Date.now() });
    if (this.#embeddingStatus !== undefined) {
      this.#error(res, { status: this.#embeddingStatus });
      return;
    }
    const data = input.map((text, index) => ({ object: 'embedding', index, embedding: this.#embed!(text) }));
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } }));
  }

  #error(res: ServerResponse, step: ErrorStep): void {
    const headers: Record<string, string> = { 'content-type': step.text === undefined ? 'application/json' : 'text/plain; charset=utf-8' };
    if (step.retryAfter !== undefined) headers['retry-after'] = step.retryAfter;
    res
      .writeHead(step.status, headers)
      .end(step.text ?? JSON.stringify(step.body ?? { error: { message: `fake error ${step.status}`, type: 'server_error' } }));
  }

  #nextId(): string {
    return `chatcmpl-fake-${++this.#id}`;
  }

  #chunk(id: string, request: RecordedRequest, delta: Record<string, unknown>, finishReason: string | null = null) {
    return {
      id,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: request.body.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    };
  }

  #send(res: ServerResponse, data: unknown): void {
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  }

  /** The step as `profile`'s provider streams it. */
  async #profiled(res: ServerResponse, request: RecordedRequest, step: TextStep, profile: ProfileName): Promise<void> {
    const shaped = shapeStream(profile, {
      id: this.#nextId(),
      model: request.body.model,
      text: step.text ?? '',
      reasoning: step.reasoning ?? '',
      calls: (step.toolCalls ?? []).map((call) => ({
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
        ...(call.id ? { id: call.id } : {}),
      })),
      ...(step.finishReason ? { finishReason: step.finishReason } : {}),
      usage: step.usage ?? { prompt_tokens: 10, completion_tokens: 5 },
      includeUsage: request.body.stream_options?.include_usage === true,
      ...(step.chunkSize ? { chunkSize: step.chunkSize } : {}),
      ...(step.splitCalls ? { splitCalls: true } : {}),
      serial: () => ++this.#serial,
    });
    for (const issued of shaped.signatures) this.#signatures.set(issued.id, issued);
    if (step.firstChunkDelayMs) await new Promise((r) => setTimeout(r, step.firstChunkDelayMs));
    const ended = await this.#write(res, shaped.frames, step);
    if (ended === 'closed') return;
    if (ended === 'cut') return cut(res);
    if (shaped.done) res.write('data: [DONE]\n\n');
    res.end();
  }

  /** Writes the frames, pausing as the step says; stops at the finish chunk when the step cuts there. */
  async #write(res: ServerResponse, frames: Frame[], step: Partial<TextStep>): Promise<'written' | 'cut' | 'closed'> {
    let closed = false;
    res.on('close', () => (closed = true));
    let held = false;
    for (const frame of frames) {
      if (closed) return 'closed';
      if (frame.kind === 'comment') {
        res.write(`:${frame.text}\n\n`);
        continue;
      }
      this.#send(res, frame.data);
      if (frame.finish && step.cutAfterFinish) return 'cut';
      if (frame.answer && step.hold && !held) {
        held = true;
        await step.hold;
      }
      if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    }
    return closed ? 'closed' : 'written';
  }

  async #stream(res: ServerResponse, request: RecordedRequest, step: TextStep): Promise<void> {
    const id = this.#nextId();
    const size = step.chunkSize ?? 8;
    const pause = () => (step.delayMs ? new Promise((r) => setTimeout(r, step.delayMs)) : Promise.resolve());
    let closed = false;
    res.on('close', () => (closed = true));
    let held = false;
    const afterContent = async () => {
      if (step.hold && !held) {
        held = true;
        await step.hold;
      }
      await pause();
    };

    if (step.firstChunkDelayMs) await new Promise((r) => setTimeout(r, step.firstChunkDelayMs));
    if (closed) return;
    this.#send(res, this.#chunk(id, request, { role: 'assistant', content: '' }));
    for (const piece of split(step.reasoning ?? '', size)) {
      if (closed) return;
      this.#send(res, this.#chunk(id, request, { reasoning_content: piece }));
      await pause();
    }
    for (const piece of split(step.text ?? '', size)) {
      if (closed) return;
      this.#send(res, this.#chunk(id, request, { content: piece }));
      await afterContent();
    }
    for (const [index, call] of (step.toolCalls ?? []).entries()) {
      const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
      this.#send(
        res,
        this.#chunk(id, request, {
          tool_calls: [
            { index, id: call.id ?? `call_${this.#id}_${index}`, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        }),
      );
      for (const piece of split(args, size)) {
        if (closed) return;
        this.#send(res, this.#chunk(id, request, { tool_calls: [{ index, function: { arguments: piece } }] }));
        await afterContent();
      }
    }
    const finish = step.finishReason ?? (step.toolCalls?.length ? 'tool_calls' : 'stop');
    this.#send(res, this.#chunk(id, request, {}, finish));
    if (step.cutAfterFinish) return cut(res);
    if (request.body.stream_options?.include_usage) {
      const usage = step.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
      this.#send(res, {
        id,
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: request.body.model,
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    }
    res.write('data: [DONE]\n\n');
    res.end();
  }
}

/** Ends the connection where it is: the body's chunked encoding is never finished. */
async function cut(res: ServerResponse): Promise<void> {
  const socket = res.socket;
  if (!socket) return;
  // Ended (not destroyed) first, so that every byte written so far reaches the client before the FIN.
  await new Promise<void>((resolve) => socket.end(() => resolve()));
  socket.destroy();
}

/** A body whose messages' list contents are kept as `parts`, with their text as `content`. */
function withPartsApart(body: RecordedRequest['body']): RecordedRequest['body'] {
  for (const message of body.messages) {
    const content: unknown = message.content;
    if (!Array.isArray(content)) continue;
    message.parts = content as RecordedPart[];
    message.content = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
  }
  return body;
}

/** The image_url parts of a request's user messages, in order. */
function imagePartsOf(request: RecordedRequest): { url: string; message: number }[] {
  return request.body.messages.flatMap((message, index) =>
    (message.parts ?? []).flatMap((part) => (part.type === 'image_url' ? [{ url: part.image_url.url, message: index }] : [])),
  );
}

/** The images a request carried, decoded from their data: URLs. */
export function imagesOf(request: RecordedRequest): { mime: string; bytes: Buffer }[] {
  return imagePartsOf(request).map(({ url }) => {
    const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (!match) throw new Error(`not a base64 data: URL: ${url.slice(0, 40)}`);
    return { mime: match[1]!, bytes: Buffer.from(match[2]!, 'base64') };
  });
}

function imageRefusalStep(style: ImageRefusal, request: RecordedRequest): ErrorStep {
  const [first] = imagePartsOf(request);
  const at = first?.message ?? 0;
  switch (style) {
    case 'openai':
      return {
        status: 400,
        body: {
          error: {
            message: 'Invalid content type. image_url is only supported by certain models.',
            type: 'invalid_request_error',
            param: `messages.[${at}].content.[1].type`,
            code: null,
          },
        },
      };
    case 'deepseek':
      return {
        status: 400,
        body: {
          error: {
            message: `Failed to deserialize the JSON body into the target type: messages[${at}]: unknown variant \`image_url\`, expected \`text\` at line 1 column ${request.raw.indexOf('image_url')}`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_request_error',
          },
        },
      };
    case 'ollama':
      return {
        status: 400,
        body: { error: { message: 'this model does not support image input', type: 'invalid_request_error', param: null, code: null } },
      };
    case 'llamacpp':
      return {
        status: 500,
        body: {
          error: {
            code: 500,
            message: 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj',
            type: 'server_error',
          },
        },
      };
  }
}

/** Width × height from an image's header (JPEG's start-of-frame, PNG's IHDR); undefined for other formats. */
function headerSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes[0] === 0x89 && bytes.subarray(12, 16).toString('latin1') === 'IHDR') {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  for (let at = 2; at + 9 < bytes.length; ) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    // SOF0..SOF15 carry the size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return undefined;
}

/**
 * What a seeing model would say it was sent, worked out from the parts (so a test can check the
 * answer the chat gets comes from them): "2 images: image/jpeg 2048×1365, image/png 640×360".
 */
export function describeImages(request: RecordedRequest): string {
  const images = imagesOf(request);
  if (images.length === 0) return 'no images';
  const each = images.map(({ mime, bytes }) => {
    const size = headerSize(bytes);
    return size ? `${mime} ${size.width}×${size.height}` : mime;
  });
  return `${images.length} image${images.length === 1 ? '' : 's'}: ${each.join(', ')}`;
}
