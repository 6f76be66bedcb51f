// The media pipeline's entry point (src/app.ts builds it from the configuration): the intake that
// turns a message's attachments into the user message (MessageMedia, for the gateway), the model
// client that sends cached images as image parts, the disk cache and its sweep. See
// docs/multimodal.md.
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Config, DatabaseTarget } from '../config/config.ts';
import type { ChannelAdapter, Inbound } from '../core/types.ts';
import { localeOrDefault } from '../core/i18n/index.ts';
import type { MessageMedia } from '../gateway/ports.ts';
import type { LlmClient } from '../llm/types.ts';
import type { Logger } from '../log.ts';
import { MediaCache } from './cache.ts';
import { MediaIntake } from './intake.ts';
import { mediaClient } from './media-client.ts';
import { Transcriber } from './transcribe.ts';
import { VisionState } from './vision.ts';

/** Where per-install files go: beside the SQLite database, ./data for PostgreSQL, a temporary folder for an in-memory database. */
export function dataDirFor(database: DatabaseTarget): string {
  if (database.provider !== 'sqlite') return resolve('data');
  return database.file === ':memory:' ? join(tmpdir(), `parley-${process.pid}`) : dirname(database.file);
}

/** How often the cache is swept for files past the age limit. */
const SWEEP_EVERY_MS = 60 * 60_000;

export interface MediaOptions {
  config: Config;
  /** The folder of per-install files (beside the SQLite database; ./data otherwise): the cache is its media/ folder. */
  dataDir: string;
  adapters: readonly ChannelAdapter[];
  log: Logger;
}

export class Media implements MessageMedia {
  readonly cache: MediaCache;
  readonly vision: VisionState;
  readonly intake: MediaIntake;
  readonly #config: Config['media'];
  readonly #log: Logger;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: MediaOptions) {
    const { config, log } = options;
    this.#config = config.media;
    this.#log = log;
    const dir = join(options.dataDir, 'media');
    this.cache = new MediaCache(dir);
    this.vision = new VisionState(config.media.vision, config.model, join(dir, 'vision.json'));
    const adapters = new Map(options.adapters.map((adapter) => [adapter.id, adapter]));
    const transcribe = config.media.transcribe;
    this.intake = new MediaIntake({
      adapterFor: (channel) => adapters.get(channel),
      cache: this.cache,
      vision: this.vision,
      ...(transcribe ? { transcriber: new Transcriber({ ...transcribe, timeoutMs: config.model.timeoutMs }) } : {}),
      maxBytes: config.media.maxBytes,
      timeoutMs: config.media.timeoutMs,
      documentTokens: config.media.documentTokens,
      log,
    });
  }

  /** The model client that sends the conversation's cached images. */
  client(inner: LlmClient): LlmClient {
    return mediaClient(inner, { cache: this.cache, vision: this.vision, imagesInContext: this.#config.imagesInContext, log: this.#log });
  }

  // The router has resolved the message's language into `inbound.locale`: the chat's lines follow it.
  unreadableReply(inbound: Inbound): string | undefined {
    return this.intake.unreadableReply(inbound, localeOrDefault(inbound.locale));
  }

  describe(inbound: Inbound): string {
    return this.intake.describe(inbound, localeOrDefault(inbound.locale));
  }

  needsPreparing(inbound: Inbound): boolean {
    return this.intake.needsPreparing(inbound);
  }

  prepare(inbound: Inbound, context: { sessionId: string; signal?: AbortSignal }) {
    return this.intake.prepare(inbound, { ...context, locale: localeOrDefault(inbound.locale) });
  }

  forgetSession(sessionId: string): Promise<void> {
    return this.cache.dropSession(sessionId);
  }

  /** Sweeps the cache now and every hour (files older than PARLEY_MEDIA_CACHE_DAYS). */
  start(): void {
    const sweep = () =>
      void this.cache
        .sweep(this.#config.cacheMaxAgeMs)
        .then((removed) => removed && this.#log.info({ removed }, 'removed cached media past its age limit'))
        .catch((error: unknown) => this.#log.warn({ err: error }, 'could not sweep the media cache'));
    sweep();
    this.#sweeper = setInterval(sweep, SWEEP_EVERY_MS);
    this.#sweeper.unref();
  }

  stop(): void {
    clearInterval(this.#sweeper);
  }
}
