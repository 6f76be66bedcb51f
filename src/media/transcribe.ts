// Speech to text through the model server's OpenAI-compatible transcription endpoint
// (POST {base}/audio/transcriptions, a multipart form with `file` and `model`, answering
// `{ "text": ... }`). The file goes as it came: OGG/Opus (Telegram, Discord and Feishu voice
// notes), MP3, M4A, WAV, WebM and FLAC are all formats the endpoint takes, told by the file name's
// extension (OpenAI reads the format from it), so nothing is converted.
import { z } from 'zod';
import { MediaError } from './media-error.ts';

export interface TranscriberSettings {
  model: string;
  /** e.g. https://api.openai.com/v1 (the chat model's by default). */
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
}

/** Formats the endpoint accepts (OpenAI: flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm). */
const TRANSCRIBABLE = new Set(['flac', 'mp3', 'mp4', 'm4a', 'ogg', 'wav', 'webm']);

const AnswerSchema = z.object({ text: z.string() });

export class Transcriber {
  readonly #settings: TranscriberSettings;

  constructor(settings: TranscriberSettings) {
    this.#settings = settings;
  }

  get model(): string {
    return this.#settings.model;
  }

  async transcribe(audio: Buffer, format: { ext: string; mime: string }, signal?: AbortSignal): Promise<string> {
    if (!TRANSCRIBABLE.has(format.ext))
      throw new MediaError('unsupported-audio', `the transcription endpoint does not take .${format.ext}`);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(audio)], { type: format.mime }), `audio.${format.ext}`);
    form.append('model', this.#settings.model);
    form.append('response_format', 'json');
    const timeout = AbortSignal.timeout(this.#settings.timeoutMs);
    const url = `${this.#settings.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        body: form,
        headers: this.#settings.apiKey ? { authorization: `Bearer ${this.#settings.apiKey}` } : {},
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      const why = timeout.aborted ? `no answer within ${this.#settings.timeoutMs} ms` : (error as Error).message;
      throw new MediaError('transcription-failed', `the transcription endpoint failed: ${why}`, { cause: error });
    }
    const body = await response.text().catch(() => '');
    if (!response.ok) {
      throw new MediaError('transcription-failed', `the transcription endpoint answered ${response.status}: ${body.slice(0, 300)}`);
    }
    let parsed: z.infer<typeof AnswerSchema>;
    try {
      parsed = AnswerSchema.parse(JSON.parse(body));
    } catch (error) {
      throw new MediaError('transcription-failed', `the transcription endpoint sent no text: ${body.slice(0, 200)}`, { cause: error });
    }
    return parsed.text.trim();
  }
}
