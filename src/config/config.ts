// Parley's core configuration, read from the environment (and .env) and validated at start.
// Channel adapters own their settings (adapters/*/config.ts); src/main.ts reads both.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import {
  ConfigError,
  boolean,
  decimal,
  duration,
  httpUrl,
  integer,
  list,
  localeSetting,
  oneOf,
  optionalDecimal,
  optionalString,
  parseEnv,
  stringWithDefault,
} from '../core/env.ts';
import type { LocaleSetting } from '../core/i18n/index.ts';
import { type ModelConfig, modelsFromEnv, type ModelsSetup } from './models.ts';

export type { ModelConfig } from './models.ts';
import { PromptTemplate } from './prompt-template.ts';

const DEFAULT_DATABASE_URL = 'file:./data/parley.db';

export type DatabaseTarget = { provider: 'sqlite'; url: string; file: string } | { provider: 'postgresql'; url: string };

export function parseDatabaseUrl(raw: string, cwd = process.cwd()): DatabaseTarget {
  if (raw.startsWith('file:')) {
    const path = raw.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new ConfigError('Invalid configuration: DATABASE_URL expects file:<path> with a file path (got "file:")');
    const file = path === ':memory:' ? path : isAbsolute(path) ? path : resolve(cwd, path);
    return { provider: 'sqlite', url: raw, file };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('Invalid configuration: DATABASE_URL is not a valid postgresql:// URL');
    }
    return { provider: 'postgresql', url: raw };
  }
  const scheme = /^[a-z0-9+.-]+:/i.exec(raw)?.[0] ?? raw.slice(0, 20);
  throw new ConfigError(`Invalid configuration: DATABASE_URL expects file:<path> (SQLite) or postgresql://... (got "${scheme}...")`);
}

/** The calibrated default of PARLEY_KNOWLEDGE_MIN_MATCH (bench/knowledge-threshold.ts). */
export const DEFAULT_KNOWLEDGE_MIN_MATCH = 0.3;

const CoreEnvSchema = z.object({
  DATABASE_URL: stringWithDefault(DEFAULT_DATABASE_URL),
  OPENAI_BASE_URL: httpUrl(),
  OPENAI_API_KEY: optionalString(),
  OPENAI_MODEL: optionalString(),
  OPENAI_TIMEOUT: duration(120_000),
  OPENAI_MAX_RETRIES: integer(3, 0, 10),
  OPENAI_RETRY_BUDGET: duration(120_000),
  OPENAI_TEMPERATURE: optionalDecimal(0, 2),
  OPENAI_EMBEDDING_MODEL: optionalString(),
  OPENAI_STREAM_USAGE: boolean(true),
  PARLEY_BOT_NAME: stringWithDefault('Parley'),
  PARLEY_SYSTEM_PROMPT: optionalString(),
  PARLEY_SYSTEM_PROMPT_FILE: optionalString(),
  PARLEY_GROUP_SESSION: oneOf(['shared', 'per-user'] as const, 'shared'),
  PARLEY_LOCALE: localeSetting(),
  PARLEY_MAX_ROUNDS: integer(10, 1, 100),
  PARLEY_LOOP_WARN: integer(3, 2, 50),
  PARLEY_LOOP_STOP: integer(5, 2, 100),
  PARLEY_TOOL_TIMEOUT: duration(30_000),
  PARLEY_TOOL_RESULT_MAX_CHARS: integer(16_000, 200),
  PARLEY_CONTEXT_TOKENS: integer(24_000, 1_000),
  PARLEY_ADMINS: list(),
  PARLEY_APPROVAL_TTL: duration(30 * 60_000),
  PARLEY_KNOWLEDGE_AUTO_CONTEXT: boolean(true),
  PARLEY_KNOWLEDGE_MIN_MATCH: decimal(DEFAULT_KNOWLEDGE_MIN_MATCH, 0, 1),
  /** Deprecated: an absolute page score (see knowledgeThreshold). */
  PARLEY_KNOWLEDGE_MIN_SCORE: optionalDecimal(0, 1_000_000),
  PARLEY_KNOWLEDGE_MAX_SECTIONS: integer(3, 0, 20),
  PARLEY_KNOWLEDGE_CONTEXT_TOKENS: integer(1_500, 100),
  PARLEY_ALLOW_PRIVATE_HTTP: boolean(false),
  PARLEY_RATE_PER_MINUTE: integer(20, 0, 100_000),
  PARLEY_QUEUE_MAX: integer(20, 0, 10_000),
  PARLEY_TOKENS_PER_PERSON_DAY: integer(0, 0, 1_000_000_000_000),
  PARLEY_TOKENS_PER_CHAT_DAY: integer(0, 0, 1_000_000_000_000),
  PARLEY_MAX_MESSAGE_CHARS: integer(16_000, 100, 10_000_000),
  PARLEY_PRICE_INPUT: optionalDecimal(0, 1_000_000),
  PARLEY_PRICE_CACHED_INPUT: optionalDecimal(0, 1_000_000),
  PARLEY_PRICE_OUTPUT: optionalDecimal(0, 1_000_000),
  OPENAI_VISION: oneOf(['auto', 'on', 'off'] as const, 'auto'),
  OPENAI_TRANSCRIBE_MODEL: optionalString(),
  OPENAI_TRANSCRIBE_BASE_URL: httpUrl(),
  OPENAI_TRANSCRIBE_API_KEY: optionalString(),
  PARLEY_MEDIA_MAX_MB: decimal(20, 0.01, 2_000),
  PARLEY_MEDIA_TIMEOUT: duration(60_000),
  PARLEY_MEDIA_DOCUMENT_TOKENS: integer(6_000, 100, 1_000_000),
  PARLEY_MEDIA_IMAGES_IN_CONTEXT: integer(4, 0, 50),
  PARLEY_MEDIA_CACHE_DAYS: decimal(7, 0.01, 3_650),
  PARLEY_LOG_LEVEL: oneOf(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const, 'info'),
});

export type ApprovalOverride = 'always' | 'never';

/** What one person or chat may ask of the model; 0 turns a limit off. Admins are exempt. */
export interface LimitSettings {
  /** Messages to the bot per person per minute; the excess is answered once with "slow down". */
  perPersonPerMinute: number;
  /** Messages waiting in one conversation while the bot is busy; the excess is refused. */
  maxQueued: number;
  /** Tokens per person per day (UTC), across their chats on a channel. */
  personTokensPerDay: number;
  /** Tokens per chat per day (UTC). */
  chatTokensPerDay: number;
  /** Longer messages are cut to this many characters, with a note to the model and the sender. */
  maxMessageChars: number;
}

export interface TokenPrices {
  input: number;
  /** Cached input (unset: the input price). */
  cachedInput: number;
  output: number;
}

/** What the bot does with attachments (src/media, docs/multimodal.md). */
interface MediaConfig {
  /** Send images to the model: auto (until the server refuses them, remembered per model), on, off. */
  vision: 'auto' | 'on' | 'off';
  /** Voice notes and audio through the transcription endpoint; off when unset. */
  transcribe?: { model: string; baseUrl: string; apiKey?: string };
  /** Larger downloads are stopped at this many bytes. */
  maxBytes: number;
  /** One download may take this long. */
  timeoutMs: number;
  /** A message's documents show at most this many tokens of text. */
  documentTokens: number;
  /** The newest images of a conversation re-sent to the model with each request; older ones become their note. */
  imagesInContext: number;
  /** Cached images are deleted after this long. */
  cacheMaxAgeMs: number;
}

export interface Config {
  database: DatabaseTarget;
  media: MediaConfig;
  /** The model of the OPENAI_* variables (named "default" in `models`). */
  model: ModelConfig;
  /** Every named model, the default, per-channel choices and the fallback chain (see models.ts). */
  models: ModelsSetup;
  bot: {
    name: string;
    /** The system prompt's base (PARLEY_SYSTEM_PROMPT, PARLEY_SYSTEM_PROMPT_FILE or the configuration file), a checked template. */
    prompt?: PromptTemplate;
    groupSession: 'shared' | 'per-user';
    /** The language of the bot's own texts: fixed, or `auto` (each person's, where the platform tells it). */
    locale: LocaleSetting;
  };
  agent: {
    maxRounds: number;
    loopWarnAt: number;
    loopStopAt: number;
    toolTimeoutMs: number;
    toolResultMaxChars: number;
    contextTokens: number;
  };
  approvals: {
    /** "channel:userId" entries. */
    admins: string[];
    ttlMs: number;
    /** Per-tool policy overrides from PARLEY_APPROVAL_<TOOL>=always|never. */
    overrides: Record<string, ApprovalOverride>;
  };
  knowledge: {
    autoContext: boolean;
    /** A page goes into the automatic context when its match (0-1: share of the question's best possible score) reaches this. */
    minMatch?: number;
    /** Deprecated (PARLEY_KNOWLEDGE_MIN_SCORE): an absolute page score, which grows with the question's length. */
    minScore?: number;
    /** Set when a deprecated knowledge variable is used: one line saying what to do instead. */
    deprecation?: string;
    maxSections: number;
    contextTokens: number;
    /** Semantic search through the embeddings endpoint (off when unset). */
    embeddingModel?: string;
  };
  http: { allowPrivateAddresses: boolean };
  limits: LimitSettings;
  /** Prices per million tokens, for `parley usage` (unset: no cost shown). */
  prices?: TokenPrices;
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
}

function approvalOverrides(env: Record<string, string | undefined>): Record<string, ApprovalOverride> {
  const overrides: Record<string, ApprovalOverride> = {};
  for (const [key, raw] of Object.entries(env)) {
    if (!key.startsWith('PARLEY_APPROVAL_') || key === 'PARLEY_APPROVAL_TTL' || raw === undefined || raw === '') continue;
    const value = raw.trim().toLowerCase();
    if (value !== 'always' && value !== 'never') {
      throw new ConfigError(`Invalid configuration: ${key} expects always or never (got "${raw}")`);
    }
    overrides[key.slice('PARLEY_APPROVAL_'.length).toLowerCase()] = value;
  }
  return overrides;
}

function pricesOf(input: number | undefined, cachedInput: number | undefined, output: number | undefined): { prices?: TokenPrices } {
  if (input === undefined && output === undefined && cachedInput === undefined) return {};
  if (input === undefined || output === undefined) {
    throw new ConfigError('Invalid configuration: PARLEY_PRICE_INPUT and PARLEY_PRICE_OUTPUT go together (prices per million tokens)');
  }
  return { prices: { input, cachedInput: cachedInput ?? input, output } };
}

/**
 * The automatic context's threshold. PARLEY_KNOWLEDGE_MIN_MATCH (a share, the same for every
 * language and length of question) by default; PARLEY_KNOWLEDGE_MIN_SCORE, the absolute score of
 * earlier versions, still works as it did (alone, or as a second condition beside MIN_MATCH) but
 * is deprecated.
 */
function knowledgeThreshold(
  minMatch: number,
  matchGiven: boolean,
  minScore: number | undefined,
): Pick<Config['knowledge'], 'minMatch' | 'minScore' | 'deprecation'> {
  if (minScore === undefined) return { minMatch };
  return {
    ...(matchGiven ? { minMatch } : {}),
    minScore,
    deprecation: `PARLEY_KNOWLEDGE_MIN_SCORE is deprecated: a raw score grows with the question's length and differs between languages. Remove it to use PARLEY_KNOWLEDGE_MIN_MATCH (default ${DEFAULT_KNOWLEDGE_MIN_MATCH}; \`parley knowledge search\` shows each page's match).`,
  };
}

function transcription(
  model: string | undefined,
  baseUrl: string | undefined,
  apiKey: string | undefined,
  chat: { baseUrl?: string; apiKey?: string },
): MediaConfig['transcribe'] {
  if (!model) {
    if (baseUrl || apiKey) {
      throw new ConfigError(
        'Invalid configuration: OPENAI_TRANSCRIBE_BASE_URL and OPENAI_TRANSCRIBE_API_KEY need OPENAI_TRANSCRIBE_MODEL (e.g. whisper-1)',
      );
    }
    return undefined;
  }
  const url = baseUrl ?? chat.baseUrl ?? ((apiKey ?? chat.apiKey) ? 'https://api.openai.com/v1' : undefined);
  if (!url) {
    throw new ConfigError(
      'Invalid configuration: OPENAI_TRANSCRIBE_MODEL needs OPENAI_TRANSCRIBE_BASE_URL or OPENAI_BASE_URL (or an API key for OpenAI)',
    );
  }
  const key = apiKey ?? chat.apiKey;
  return { model, baseUrl: url, ...(key ? { apiKey: key } : {}) };
}

function readSystemPrompt(inline: string | undefined, file: string | undefined, cwd: string): PromptTemplate | undefined {
  if (inline) return PromptTemplate.compile(inline, { shown: 'PARLEY_SYSTEM_PROMPT' });
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`Invalid configuration: PARLEY_SYSTEM_PROMPT_FILE expects a readable file (got "${file}": ${reason})`);
  }
  return text.trim() ? PromptTemplate.compile(text, { shown: file }) : undefined;
}

const ModelEnvSchema = CoreEnvSchema.pick({
  OPENAI_BASE_URL: true,
  OPENAI_API_KEY: true,
  OPENAI_MODEL: true,
  OPENAI_TIMEOUT: true,
  OPENAI_MAX_RETRIES: true,
  OPENAI_RETRY_BUDGET: true,
  OPENAI_TEMPERATURE: true,
  OPENAI_STREAM_USAGE: true,
});

function modelConfigOf(parsed: z.output<typeof ModelEnvSchema>): ModelConfig {
  return {
    configured: Boolean(parsed.OPENAI_MODEL && (parsed.OPENAI_BASE_URL || parsed.OPENAI_API_KEY)),
    baseUrl: parsed.OPENAI_BASE_URL,
    apiKey: parsed.OPENAI_API_KEY,
    model: parsed.OPENAI_MODEL,
    timeoutMs: parsed.OPENAI_TIMEOUT,
    maxRetries: parsed.OPENAI_MAX_RETRIES,
    retryBudgetMs: parsed.OPENAI_RETRY_BUDGET,
    temperature: parsed.OPENAI_TEMPERATURE,
    streamUsage: parsed.OPENAI_STREAM_USAGE,
  };
}

/** The OPENAI_* model alone (the configuration file's models take their default timeouts from it). */
export function envModelConfig(env: Record<string, string | undefined>): ModelConfig {
  return modelConfigOf(parseEnv(ModelEnvSchema, env));
}

export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const parsed = parseEnv(CoreEnvSchema, env);
  if (parsed.PARLEY_LOOP_STOP <= parsed.PARLEY_LOOP_WARN) {
    throw new ConfigError(
      `Invalid configuration: PARLEY_LOOP_STOP expects a number greater than PARLEY_LOOP_WARN (${parsed.PARLEY_LOOP_WARN})`,
    );
  }
  for (const admin of parsed.PARLEY_ADMINS) {
    if (!/^[a-z0-9_-]+:.+$/i.test(admin)) {
      throw new ConfigError(`Invalid configuration: PARLEY_ADMINS expects channel:userId entries, comma-separated (got "${admin}")`);
    }
  }
  const model = modelConfigOf(parsed);
  return {
    database: parseDatabaseUrl(parsed.DATABASE_URL, cwd),
    media: {
      vision: parsed.OPENAI_VISION,
      transcribe: transcription(parsed.OPENAI_TRANSCRIBE_MODEL, parsed.OPENAI_TRANSCRIBE_BASE_URL, parsed.OPENAI_TRANSCRIBE_API_KEY, {
        baseUrl: parsed.OPENAI_BASE_URL,
        apiKey: parsed.OPENAI_API_KEY,
      }),
      maxBytes: Math.round(parsed.PARLEY_MEDIA_MAX_MB * 1_000_000),
      timeoutMs: parsed.PARLEY_MEDIA_TIMEOUT,
      documentTokens: parsed.PARLEY_MEDIA_DOCUMENT_TOKENS,
      imagesInContext: parsed.PARLEY_MEDIA_IMAGES_IN_CONTEXT,
      cacheMaxAgeMs: Math.round(parsed.PARLEY_MEDIA_CACHE_DAYS * 86_400_000),
    },
    model,
    models: modelsFromEnv(model),
    bot: {
      name: parsed.PARLEY_BOT_NAME,
      prompt: readSystemPrompt(parsed.PARLEY_SYSTEM_PROMPT, parsed.PARLEY_SYSTEM_PROMPT_FILE, cwd),
      groupSession: parsed.PARLEY_GROUP_SESSION,
      locale: parsed.PARLEY_LOCALE,
    },
    agent: {
      maxRounds: parsed.PARLEY_MAX_ROUNDS,
      loopWarnAt: parsed.PARLEY_LOOP_WARN,
      loopStopAt: parsed.PARLEY_LOOP_STOP,
      toolTimeoutMs: parsed.PARLEY_TOOL_TIMEOUT,
      toolResultMaxChars: parsed.PARLEY_TOOL_RESULT_MAX_CHARS,
      contextTokens: parsed.PARLEY_CONTEXT_TOKENS,
    },
    approvals: {
      admins: parsed.PARLEY_ADMINS,
      ttlMs: parsed.PARLEY_APPROVAL_TTL,
      overrides: approvalOverrides(env),
    },
    knowledge: {
      autoContext: parsed.PARLEY_KNOWLEDGE_AUTO_CONTEXT,
      ...knowledgeThreshold(
        parsed.PARLEY_KNOWLEDGE_MIN_MATCH,
        Boolean(env.PARLEY_KNOWLEDGE_MIN_MATCH?.trim()),
        parsed.PARLEY_KNOWLEDGE_MIN_SCORE,
      ),
      maxSections: parsed.PARLEY_KNOWLEDGE_MAX_SECTIONS,
      contextTokens: parsed.PARLEY_KNOWLEDGE_CONTEXT_TOKENS,
      embeddingModel: parsed.OPENAI_EMBEDDING_MODEL,
    },
    http: { allowPrivateAddresses: parsed.PARLEY_ALLOW_PRIVATE_HTTP },
    limits: {
      perPersonPerMinute: parsed.PARLEY_RATE_PER_MINUTE,
      maxQueued: parsed.PARLEY_QUEUE_MAX,
      personTokensPerDay: parsed.PARLEY_TOKENS_PER_PERSON_DAY,
      chatTokensPerDay: parsed.PARLEY_TOKENS_PER_CHAT_DAY,
      maxMessageChars: parsed.PARLEY_MAX_MESSAGE_CHARS,
    },
    ...pricesOf(parsed.PARLEY_PRICE_INPUT, parsed.PARLEY_PRICE_CACHED_INPUT, parsed.PARLEY_PRICE_OUTPUT),
    logLevel: parsed.PARLEY_LOG_LEVEL,
  };
}
