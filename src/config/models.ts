// The named model endpoints: each a base URL, an API key read from a named environment variable, a
// model name, what it can do and its timeouts; which one is the default, which one each channel
// uses, and the fallback chain tried when one fails. Written in parley.config.yaml (`models:`) or
// given to defineConfig; the OPENAI_* variables stay the model named "default".
import { z } from 'zod';
import { duration } from '../core/env.ts';

export interface ModelConfig {
  /** True when a model can be called: a model name and an endpoint (base URL or API key). */
  configured: boolean;
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  timeoutMs: number;
  /** Retries of 5xx / network errors / timeouts (busy answers are retried until the budget is spent). */
  maxRetries: number;
  /** How long one model request may keep retrying. */
  retryBudgetMs: number;
  temperature?: number;
  /** Ask for token usage in the stream (`stream_options`); some servers refuse the field. */
  streamUsage: boolean;
}

interface ModelCapabilities {
  /** Takes tool declarations (otherwise its requests go without tools). */
  tools: boolean;
  /** Reads images. */
  vision: boolean;
  /** Thinks before it answers (reasoning_content / <think>). */
  reasoning: boolean;
}

export interface NamedModel {
  /** How people and the configuration name it ("main", "backup"): /model, usage, logs. */
  name: string;
  config: ModelConfig & { configured: true; model: string };
  capabilities: ModelCapabilities;
  /** The variable the API key came from (shown instead of the key). */
  apiKeyEnv?: string;
}

export interface ModelsSetup {
  /** In the order configured; empty when no model is configured. */
  models: NamedModel[];
  /** The name used where neither the chat nor its channel chose one. */
  defaultModel?: string;
  /** Tried in this order after the chosen model fails (the chosen one itself left out). */
  fallback: string[];
  /** Channel id → model name. */
  channels: Record<string, string>;
}

/** The name the model of the OPENAI_* variables goes by. */
export const ENV_MODEL_NAME = 'default';
/** What `/model` takes to go back to the channel's model or the default; no model may be named so. */
export const RESET_WORD = 'reset';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DEFAULT_CAPABILITIES: ModelCapabilities = { tools: true, vision: false, reasoning: false };
const nonEmpty = (what: string) =>
  z
    .string({ error: `expects ${what}` })
    .trim()
    .min(1, { error: `expects ${what}` });

function timeout(what: string) {
  return z.union([z.number(), z.string()], { error: `expects ${what}` }).transform((value, ctx) => {
    const parsed = duration(0).safeParse(String(value));
    if (!parsed.success || parsed.data <= 0 || parsed.data > 3_600_000) {
      ctx.addIssue({ code: 'custom', message: `expects ${what}` });
      return z.NEVER;
    }
    return parsed.data;
  });
}

const bool = z.boolean({ error: 'expects true or false' });

const CapabilitiesSchema = z.strictObject({ tools: bool.optional(), vision: bool.optional(), reasoning: bool.optional() });

const EndpointSchema = z.strictObject({
  /** `${VAR}` and `${VAR:-default}` are read from the environment (checked as a URL once read). */
  baseUrl: nonEmpty('an http:// or https:// URL').optional(),
  apiKeyEnv: z
    .string({ error: 'expects the name of an environment variable' })
    .regex(ENV_NAME, {
      error: 'expects the name of an environment variable (letters, digits, _), not the key itself',
    })
    .optional(),
  /** `${VAR}` and `${VAR:-default}` are read from the environment. */
  model: nonEmpty("the model's name on the server"),
  capabilities: CapabilitiesSchema.optional(),
  timeout: timeout('a duration up to 1h, such as 60s or 2m: how long the model may send nothing').optional(),
  retryBudget: timeout('a duration up to 1h: how long one request may keep retrying').optional(),
  maxRetries: z
    .int({ error: 'expects a whole number from 0 to 10' })
    .min(0)
    .max(10, { error: 'expects a whole number from 0 to 10' })
    .optional(),
  temperature: z.number({ error: 'expects a number from 0 to 2' }).min(0).max(2, { error: 'expects a number from 0 to 2' }).optional(),
  streamUsage: bool.optional(),
});

/** The `models:` block as written (YAML) or passed to defineConfig. */
export const ModelsInputSchema = z.strictObject({
  default: nonEmpty('a model name').optional(),
  fallback: z.array(nonEmpty('a model name'), { error: 'expects a list of model names' }).optional(),
  channels: z.record(nonEmpty('a channel id'), nonEmpty('a model name'), { error: 'expects a map of channel id to model name' }).optional(),
  endpoints: z.record(z.string(), EndpointSchema, { error: 'expects a map of model name to { baseUrl, apiKeyEnv, model, ... }' }),
});

export type ModelsInput = z.input<typeof ModelsInputSchema>;
/** The block once its shape is checked (durations in ms). */
export type ParsedModels = z.output<typeof ModelsInputSchema>;

export interface ModelsIssue {
  path: (string | number)[];
  message: string;
}

type Endpoint = z.output<typeof EndpointSchema>;

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `text` with `${VAR}` / `${VAR:-default}` read from `env`; null (and an issue) when a variable without default is unset. */
function expand(text: string, env: Record<string, string | undefined>, path: (string | number)[], issues: ModelsIssue[]): string | null {
  const missing: string[] = [];
  const value = text.replace(VARIABLE, (_whole, name: string, fallback: string | undefined) => {
    const found = env[name]?.trim();
    if (found) return found;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return '';
  });
  for (const name of missing) issues.push({ path, message: `uses \${${name}}, which is not set in the environment` });
  return missing.length ? null : value.trim();
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function namedFromEnv(envModel: ModelConfig): NamedModel[] {
  if (!envModel.configured || !envModel.model) return [];
  return [{ name: ENV_MODEL_NAME, config: { ...envModel, configured: true, model: envModel.model }, capabilities: DEFAULT_CAPABILITIES }];
}

function namedFromEndpoint(
  name: string,
  endpoint: Endpoint,
  envModel: ModelConfig,
  env: Record<string, string | undefined>,
  issues: ModelsIssue[],
): NamedModel | undefined {
  const at = ['models', 'endpoints', name];
  if (!NAME.test(name) || name.toLowerCase() === RESET_WORD) {
    issues.push({ path: at, message: `model names are 1-32 letters, digits, ".", "_" or "-" (and not "${RESET_WORD}")` });
    return undefined;
  }
  if (name === ENV_MODEL_NAME && envModel.configured) {
    issues.push({ path: at, message: `"${ENV_MODEL_NAME}" is the model of the OPENAI_* variables; name this one differently` });
    return undefined;
  }
  let apiKey: string | undefined;
  if (endpoint.apiKeyEnv) {
    apiKey = env[endpoint.apiKeyEnv]?.trim() || undefined;
    if (!apiKey) {
      issues.push({ path: [...at, 'apiKeyEnv'], message: `${endpoint.apiKeyEnv} is not set in the environment (.env)` });
      return undefined;
    }
  }
  const baseUrl = endpoint.baseUrl === undefined ? undefined : expand(endpoint.baseUrl, env, [...at, 'baseUrl'], issues);
  const model = expand(endpoint.model, env, [...at, 'model'], issues);
  if (baseUrl === null || model === null) return undefined;
  if (baseUrl !== undefined && !isHttpUrl(baseUrl)) {
    issues.push({ path: [...at, 'baseUrl'], message: `expects an http:// or https:// URL (got "${baseUrl}")` });
    return undefined;
  }
  if (!baseUrl && !apiKey) {
    issues.push({ path: at, message: 'needs baseUrl (a local or self-hosted server) or apiKeyEnv (api.openai.com)' });
    return undefined;
  }
  return {
    name,
    config: {
      configured: true,
      model,
      ...(baseUrl ? { baseUrl } : {}),
      ...(apiKey ? { apiKey } : {}),
      timeoutMs: endpoint.timeout ?? envModel.timeoutMs,
      maxRetries: endpoint.maxRetries ?? envModel.maxRetries,
      retryBudgetMs: endpoint.retryBudget ?? envModel.retryBudgetMs,
      ...(endpoint.temperature !== undefined ? { temperature: endpoint.temperature } : {}),
      streamUsage: endpoint.streamUsage ?? envModel.streamUsage,
    },
    capabilities: { ...DEFAULT_CAPABILITIES, ...endpoint.capabilities },
    ...(endpoint.apiKeyEnv ? { apiKeyEnv: endpoint.apiKeyEnv } : {}),
  };
}

/**
 * The models in use: the OPENAI_* model (named "default") when it is configured, plus those of the
 * `models:` block; every mistake is one issue with its path (the caller adds file and line).
 * `envModel` also gives the timeouts an endpoint does not set.
 */
export function resolveModels(
  raw: unknown,
  envModel: ModelConfig,
  env: Record<string, string | undefined>,
): { setup?: ModelsSetup; issues: ModelsIssue[] } {
  const fromEnv = namedFromEnv(envModel);
  if (raw === undefined || raw === null) {
    return { setup: { models: fromEnv, ...(fromEnv[0] ? { defaultModel: ENV_MODEL_NAME } : {}), fallback: [], channels: {} }, issues: [] };
  }
  const parsed = ModelsInputSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      issues: parsed.error.issues.flatMap((issue): ModelsIssue[] => {
        const path = ['models', ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
        if (issue.code !== 'unrecognized_keys') return [{ path, message: issue.message }];
        const expected = Object.keys(
          (path.length === 1 ? ModelsInputSchema : path.at(-1) === 'capabilities' ? CapabilitiesSchema : EndpointSchema).shape,
        );
        return issue.keys.map((key) => ({ path: [...path, key], message: `unknown key (expected one of: ${expected.join(', ')})` }));
      }),
    };
  }
  return resolveParsedModels(parsed.data, envModel, env);
}

/** The models of a block whose shape is checked already (defineConfig's schema does it): names and keys. */
export function resolveParsedModels(
  input: ParsedModels,
  envModel: ModelConfig,
  env: Record<string, string | undefined>,
): { setup?: ModelsSetup; issues: ModelsIssue[] } {
  const fromEnv = namedFromEnv(envModel);
  const issues: ModelsIssue[] = [];
  const models = [...fromEnv];
  for (const [name, endpoint] of Object.entries(input.endpoints)) {
    const named = namedFromEndpoint(name, endpoint, envModel, env, issues);
    if (named) models.push(named);
  }
  const known = new Set([...fromEnv.map((m) => m.name), ...Object.keys(input.endpoints)]);
  const list = [...known].join(', ') || 'none';
  const check = (name: string, path: (string | number)[]) => {
    if (!known.has(name)) issues.push({ path, message: `names "${name}", which is not a configured model (configured: ${list})` });
  };
  if (input.default) check(input.default, ['models', 'default']);
  for (const [i, name] of (input.fallback ?? []).entries()) check(name, ['models', 'fallback', i]);
  for (const [channel, name] of Object.entries(input.channels ?? {})) check(name, ['models', 'channels', channel]);
  if (issues.length > 0) return { issues };
  const defaultModel = input.default ?? models[0]?.name;
  return {
    setup: {
      models,
      ...(defaultModel ? { defaultModel } : {}),
      fallback: [...new Set(input.fallback ?? [])],
      channels: input.channels ?? {},
    },
    issues,
  };
}

/** The models when nothing but the environment configures them. */
export function modelsFromEnv(envModel: ModelConfig): ModelsSetup {
  return resolveModels(undefined, envModel, {}).setup!;
}
