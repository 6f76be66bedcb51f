// Whether to send the model images. OPENAI_VISION=on always, off never; auto sends them until the
// server refuses image input, and then remembers that for this model (in a small JSON file in the
// media folder, so a restart keeps it). How real servers refuse (all with the request otherwise
// fine): OpenAI 400 "Invalid content type. image_url is only supported by certain models."
// (param messages.[i].content.[j].type); DeepSeek 400 "Failed to deserialize the JSON body into
// the target type: messages[1]: unknown variant `image_url`, expected `text`"; Ollama 400 "this
// model does not support image input" (older versions: "json: cannot unmarshal array into Go
// struct field Message.messages.content of type string"); llama.cpp's server 500 "image input is
// not supported - hint: if this is unexpected, you may need to provide the mmproj" (older: "image
// input is not supported by this server"); vLLM for a text-only model "At most 0 image(s) may be
// provided in one request"; gateways "Model do not support image input."; Bedrock "This model
// doesn't support the image field".
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as OpenAI from 'openai/core/error';
import { z } from 'zod';
import { LlmError } from '../llm/errors.ts';

const REFUSAL =
  /image_url is only supported|unknown variant [`'"]?image_url|does(?:n't| not) support (?:the )?image|(?:do|does) not support image|not support image input|image input is not supported|at most 0 image|cannot unmarshal array into go struct field .*content of type string|not a multimodal model|does not support vision|vision is not supported|image(?:s)? (?:are|is) not supported/i;

/** Statuses a refusal of image input comes with (llama.cpp's server says 500). */
const REFUSAL_STATUSES = new Set([400, 415, 422, 500]);

/** Whether a failed request was the server refusing image input (the request had images). */
export function isImageRefusal(error: unknown): string | undefined {
  if (!(error instanceof LlmError) || error.status === undefined || !REFUSAL_STATUSES.has(error.status)) return undefined;
  const body = `${error.message} ${error.cause instanceof OpenAI.APIError ? JSON.stringify(error.cause.error ?? '') : ''}`;
  const match = REFUSAL.exec(body);
  return match ? `${error.status}: ${match[0]}` : undefined;
}

const FileSchema = z.record(z.string(), z.object({ refusedAt: z.string(), reason: z.string() }));

export class VisionState {
  readonly mode: 'auto' | 'on' | 'off';
  readonly #key: string;
  readonly #file: string;
  #known: z.infer<typeof FileSchema>;

  /** `model`: the model and base URL the refusal is remembered for; `file`: where it is kept. */
  constructor(mode: 'auto' | 'on' | 'off', model: { model?: string; baseUrl?: string }, file: string) {
    this.mode = mode;
    this.#key = `${model.baseUrl ?? 'https://api.openai.com/v1'} ${model.model ?? ''}`;
    this.#file = file;
    this.#known = readKnown(file);
  }

  /** Whether images go to the model now. */
  get canSee(): boolean {
    if (this.mode !== 'auto') return this.mode === 'on';
    return !(this.#key in this.#known);
  }

  /** The server refused images: in auto mode, remembered for this model (also across restarts). */
  async refused(reason: string): Promise<void> {
    if (this.mode !== 'auto' || !this.canSee) return;
    this.#known = { ...readKnown(this.#file), [this.#key]: { refusedAt: new Date().toISOString(), reason } };
    await mkdir(dirname(this.#file), { recursive: true });
    const temporary = `${this.#file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(this.#known, null, 2)}\n`);
    await rename(temporary, this.#file);
  }
}

function readKnown(file: string): z.infer<typeof FileSchema> {
  try {
    const parsed = FileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
