// The shape of parley.config.yaml, validated with zod. MCP servers are listed under `mcpServers`
// the way other MCP clients list them, so an existing block can be pasted: `{ command, args?, env?,
// cwd? }` runs a server over stdio, `{ url, headers? }` talks Streamable HTTP (or old HTTP+SSE).
// Parley's own keys per server: `tools` (allow/deny lists), `approval` (per tool) and `timeout`.
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { envModelConfig } from '../config/config.ts';
import { type ModelsSetup, resolveModels } from '../config/models.ts';
import type { PromptTemplate } from '../config/prompt-template.ts';
import { duration } from '../core/env.ts';

export type ApprovalSetting = 'always' | 'never';

interface ServerCommon {
  name: string;
  /** Tool name patterns (`*` matches any run of characters); empty allow list = every tool. */
  tools: { allow: string[]; deny: string[] };
  /** Per tool (name or pattern): overrides what the tool's annotations imply. */
  approval: Record<string, ApprovalSetting>;
  /** Per-call timeout; the global PARLEY_TOOL_TIMEOUT when absent. */
  timeoutMs?: number;
  disabled: boolean;
  /**
   * Values the entry took from the environment through `${VAR}`: whatever the server says (its
   * stderr, error bodies, results) has them redacted.
   */
  secrets: string[];
}

interface StdioServerConfig extends ServerCommon {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

interface HttpServerConfig extends ServerCommon {
  /** `http`: Streamable HTTP, falling back to HTTP+SSE when the server rejects it; `sse`: HTTP+SSE only. */
  transport: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

export interface FileConfig {
  /** The file it came from (absent when there is none). */
  path?: string;
  mcpServers: McpServerConfig[];
  /** The `models:` block with the OPENAI_* model (absent: the environment's model alone). */
  models?: ModelsSetup;
  /** The system prompt's template, checked. */
  prompt?: PromptTemplate;
}

/** Where the template is (checked by load.ts): a file (an absolute path) or the text itself. */
export type PromptSource = { file: string } | { template: string };

/** What the file says, before load.ts reads and checks the prompt template. */
export type ParsedFileConfig = Omit<FileConfig, 'path' | 'prompt'> & { prompt?: PromptSource };

export interface Issue {
  path: (string | number)[];
  message: string;
}

/** Where `${VAR}` references are looked up, and what relative paths are relative to. */
interface ParseContext {
  env: Record<string, string | undefined>;
  baseDir: string;
}

/** Where the values `${VAR}` references took from the environment are collected (one server entry). */
type SecretValues = Set<string>;

// Every stdio server gets these anyway (the MCP SDK's basic environment): their values are not secrets.
const NOT_SECRET = new Set(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER']);

const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const MAX_TIMEOUT_MS = 24 * 3_600_000;

/** Text with `${VAR}` / `${VAR:-default}` replaced from the environment (a secret stays out of the file). */
function expanded(env: Record<string, string | undefined>, secrets: SecretValues) {
  return z.union([z.string(), z.number(), z.boolean()], { error: 'expects text' }).transform((value, ctx) => {
    const missing: string[] = [];
    const text = String(value).replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') {
        if (!NOT_SECRET.has(name)) secrets.add(found);
        return found;
      }
      if (fallback !== undefined) return fallback;
      missing.push(name);
      return '';
    });
    for (const name of missing) ctx.addIssue({ code: 'custom', message: `uses \${${name}}, which is not set in the environment` });
    return text;
  });
}

const nonEmpty = (what: string) =>
  z
    .string({ error: `expects ${what}` })
    .trim()
    .min(1, { error: `expects ${what}` });

function timeout() {
  const message = 'expects a duration up to 24h, such as 30s or 2m (a bare number is seconds)';
  return z.union([z.number(), z.string()], { error: message }).transform((value, ctx) => {
    const parsed = duration(0).safeParse(String(value));
    if (!parsed.success || parsed.data <= 0 || parsed.data > MAX_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return parsed.data;
  });
}

const patterns = z.array(nonEmpty('a tool name or pattern'), { error: 'expects a list of tool names' });

const common = {
  type: z.enum(['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'], { error: 'expects stdio, http or sse' }).optional(),
  tools: z
    .strictObject({ allow: patterns.optional(), deny: patterns.optional() }, { error: 'expects { allow: [...], deny: [...] }' })
    .optional(),
  approval: z
    .record(nonEmpty('a tool name'), z.enum(['always', 'never'], { error: 'expects always or never' }), {
      error: 'expects a map of tool name to always or never',
    })
    .optional(),
  timeout: timeout().optional(),
  disabled: z.boolean({ error: 'expects true or false' }).optional(),
};

function stdioSchema(ctx: ParseContext, secrets: SecretValues) {
  const text = expanded(ctx.env, secrets);
  return z.strictObject({
    ...common,
    command: text.pipe(nonEmpty('the command that starts the server')),
    args: z.array(text, { error: 'expects a list of arguments' }).optional(),
    env: z
      .record(z.string().regex(/^[^=\0]+$/, { error: 'is not a valid variable name' }), text, {
        error: 'expects a map of variable names to values',
      })
      .optional(),
    cwd: text.optional(),
  });
}

function httpSchema(ctx: ParseContext, secrets: SecretValues) {
  const text = expanded(ctx.env, secrets);
  return z.strictObject({
    ...common,
    url: text.pipe(
      z.string().refine(
        (value) => {
          try {
            return ['http:', 'https:'].includes(new URL(value).protocol);
          } catch {
            return false;
          }
        },
        { error: 'expects an http:// or https:// URL' },
      ),
    ),
    headers: z
      .record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: 'is not a valid header name' }), text, {
        error: 'expects a map of header names to values',
      })
      .optional(),
  });
}

function issuesOf(error: z.ZodError, prefix: (string | number)[], keys: string[]): Issue[] {
  return error.issues.flatMap((issue): Issue[] => {
    const path = [...prefix, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key], message: `unknown key (expected one of: ${keys.join(', ')})` }));
    }
    if (issue.code === 'invalid_key') return [{ path, message: issue.issues[0]?.message ?? 'is not a valid name' }];
    return [{ path, message: issue.message }];
  });
}

function parseServer(name: string, raw: unknown, ctx: ParseContext): { server?: McpServerConfig; issues: Issue[] } {
  const at: (string | number)[] = ['mcpServers', name];
  const issues: Issue[] = [];
  if (!SERVER_NAME.test(name) || name.includes('__')) {
    issues.push({ path: at, message: 'server names are 1-32 letters, digits, _ or - (no "__": tools are named <server>__<tool>)' });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { issues: [...issues, { path: at, message: 'expects { command, args } (stdio) or { url } (HTTP)' }] };
  }
  const entry = raw as Record<string, unknown>;
  const type = typeof entry.type === 'string' ? entry.type : undefined;
  const isStdio = 'command' in entry;
  if (isStdio && 'url' in entry) {
    return { issues: [...issues, { path: at, message: 'has both command (stdio) and url (HTTP); keep one' }] };
  }
  if (!isStdio && !('url' in entry)) {
    const keys = Object.keys(entry);
    const found = keys.length ? `; it has ${keys.join(', ')}` : '';
    return {
      issues: [...issues, { path: at, message: `needs command (a server started over stdio) or url (a server over HTTP)${found}` }],
    };
  }
  if (type && isStdio !== (type === 'stdio')) {
    issues.push({
      path: [...at, 'type'],
      message: isStdio ? `is ${type}, but the server has a command (stdio)` : 'is stdio, but the server has a url (HTTP)',
    });
  }
  const secrets: SecretValues = new Set();
  const schema = isStdio ? stdioSchema(ctx, secrets) : httpSchema(ctx, secrets);
  const parsed = schema.safeParse(entry);
  if (!parsed.success) return { issues: [...issues, ...issuesOf(parsed.error, at, Object.keys(schema.shape))] };
  if (issues.length > 0) return { issues };
  const value = parsed.data;
  const base = {
    name,
    tools: { allow: value.tools?.allow ?? [], deny: value.tools?.deny ?? [] },
    approval: value.approval ?? {},
    ...(value.timeout !== undefined ? { timeoutMs: value.timeout } : {}),
    disabled: value.disabled ?? false,
    secrets: [...secrets],
  };
  if ('command' in value) {
    const cwd = value.cwd === undefined ? undefined : isAbsolute(value.cwd) ? value.cwd : resolve(ctx.baseDir, value.cwd);
    return {
      server: {
        ...base,
        transport: 'stdio',
        command: value.command,
        args: value.args ?? [],
        env: value.env ?? {},
        ...(cwd ? { cwd } : {}),
      },
      issues,
    };
  }
  return { server: { ...base, transport: type === 'sse' ? 'sse' : 'http', url: value.url, headers: value.headers ?? {} }, issues };
}

const PromptSchema = z.union(
  [z.strictObject({ file: nonEmpty('the path of a template file') }), z.strictObject({ template: nonEmpty('the template text') })],
  { error: 'expects { file: prompt.liquid } or { template: "..." } (one of them)' },
);

function promptOf(raw: unknown, ctx: ParseContext, issues: Issue[]): PromptSource | undefined {
  if (raw === undefined) return undefined;
  const parsed = PromptSchema.safeParse(raw);
  if (!parsed.success) {
    issues.push({ path: ['prompt'], message: 'expects { file: prompt.liquid } or { template: "..." } (one of them)' });
    return undefined;
  }
  return 'file' in parsed.data
    ? { file: isAbsolute(parsed.data.file) ? parsed.data.file : resolve(ctx.baseDir, parsed.data.file) }
    : parsed.data;
}

const TOP_LEVEL_KEYS = ['mcpServers', 'models', 'prompt'];

/** Validates a parsed file; every mistake is one issue (none means `config` is set). */
export function parseFileConfig(raw: unknown, ctx: ParseContext): { config?: ParsedFileConfig; issues: Issue[] } {
  if (raw === null || raw === undefined) return { config: { mcpServers: [] }, issues: [] };
  if (typeof raw !== 'object' || Array.isArray(raw))
    return { issues: [{ path: [], message: 'expects a mapping with mcpServers:, models: or prompt: at the top' }] };
  const issues: Issue[] = [];
  for (const key of Object.keys(raw)) {
    if (!TOP_LEVEL_KEYS.includes(key)) issues.push({ path: [key], message: `unknown key (expected one of: ${TOP_LEVEL_KEYS.join(', ')})` });
  }
  const servers = (raw as { mcpServers?: unknown }).mcpServers ?? {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    return { issues: [...issues, { path: ['mcpServers'], message: 'expects a map of server name to { command, ... } or { url, ... }' }] };
  }
  const mcpServers: McpServerConfig[] = [];
  const seen = new Map<string, string>();
  for (const [name, entry] of Object.entries(servers)) {
    // Tool names and PARLEY_APPROVAL_<TOOL> overrides are matched without regard to case.
    const clash = seen.get(name.toLowerCase());
    if (clash) issues.push({ path: ['mcpServers', name], message: `differs from server "${clash}" only in case; rename one` });
    seen.set(name.toLowerCase(), name);
    const result = parseServer(name, entry, ctx);
    issues.push(...result.issues);
    if (result.server) mcpServers.push(result.server);
  }
  const rawModels = (raw as { models?: unknown }).models;
  let models: ModelsSetup | undefined;
  if (rawModels !== undefined) {
    const resolved = resolveModels(rawModels, envModelConfig(ctx.env), ctx.env);
    issues.push(...resolved.issues);
    models = resolved.setup;
  }
  const prompt = promptOf((raw as { prompt?: unknown }).prompt, ctx, issues);
  return issues.length > 0 ? { issues } : { config: { mcpServers, ...(models ? { models } : {}), ...(prompt ? { prompt } : {}) }, issues };
}
