// Finds and reads parley.config.yaml (or the file PARLEY_CONFIG names; YAML or JSON) and reports
// every mistake on its own line with the file and line number, as one ConfigError.
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import type { Document, LineCounter, Node } from 'yaml';
import { PromptTemplate } from '../config/prompt-template.ts';
import { ConfigError } from '../core/env.ts';
import { parseFileConfig, type FileConfig, type Issue, type PromptSource } from './schema.ts';

type Yaml = typeof import('yaml');
let yaml: Yaml | undefined;

/** The YAML parser (about 7 MB resident) loads only when there is a configuration file to read. */
const loadYaml = (): Yaml => (yaml ??= createRequire(import.meta.url)('yaml') as Yaml);

const CONFIG_FILE_NAMES = ['parley.config.yaml', 'parley.config.yml', 'parley.config.json'];
const MAX_BYTES = 1_000_000;

/** The configuration file to read: PARLEY_CONFIG, else the first default name in `cwd` that exists. */
function configFilePath(env: Record<string, string | undefined>, cwd: string): string | undefined {
  const named = env.PARLEY_CONFIG?.trim();
  if (named) return resolve(cwd, named);
  return CONFIG_FILE_NAMES.map((name) => resolve(cwd, name)).find((path) => statSync(path, { throwIfNoEntry: false })?.isFile());
}

function readText(path: string, shown: string): string {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new ConfigError(`Invalid configuration: ${shown} is not a file`);
    size = stat.size;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(
      `Invalid configuration: cannot read the configuration file ${shown} (${code === 'ENOENT' ? 'it does not exist' : code}); check PARLEY_CONFIG`,
    );
  }
  if (size > MAX_BYTES) throw new ConfigError(`Invalid configuration: ${shown} is larger than ${MAX_BYTES / 1_000_000} MB`);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Invalid configuration: cannot read ${shown} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

/** The line a path points at: the key's line for the last step when it exists, else the nearest parent. */
function lineOf(doc: Document, path: (string | number)[], lines: LineCounter): number | undefined {
  const { isMap, isSeq, isScalar } = loadYaml();
  let node: unknown = doc.contents;
  let offset = (node as Node | null)?.range?.[0];
  for (const step of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => (isScalar(item.key) ? item.key.value : item.key) === step);
      if (!pair) break;
      offset = (pair.key as Node | null)?.range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof step === 'number' && node.items[step]) {
      node = node.items[step];
      offset = (node as Node).range?.[0] ?? offset;
    } else {
      break;
    }
  }
  return offset === undefined ? undefined : lines.linePos(offset).line;
}

/** yaml's own duplicate-key check is quadratic; this one is linear and names the key. */
function duplicateKeys(doc: Document, lines: LineCounter): { line: number; message: string }[] {
  const YAML = loadYaml();
  const { isScalar } = YAML;
  const found: { line: number; message: string }[] = [];
  YAML.visit(doc, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key))
          found.push({ line: lines.linePos((pair.key as Node).range?.[0] ?? 0).line, message: `duplicate key "${String(key)}"` });
        seen.add(key);
      }
    },
  });
  return found;
}

function pathText(path: (string | number)[]): string {
  return path
    .map((step, i) => (typeof step === 'number' ? `[${step}]` : /^[A-Za-z0-9_-]+$/.test(step) ? `${i ? '.' : ''}${step}` : `["${step}"]`))
    .join('');
}

function fail(shown: string, mistakes: { line?: number; text: string }[]): never {
  const sorted = [...mistakes].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const count = mistakes.length === 1 ? '1 mistake' : `${mistakes.length} mistakes`;
  const body = sorted.map((m) => `  ${shown}${m.line ? `:${m.line}` : ''}: ${m.text}`);
  throw new ConfigError(`Invalid configuration in ${shown} (${count}):\n${body.join('\n')}`);
}

/** Reads the configuration file, if there is one; throws a ConfigError listing every mistake. */
export function loadFileConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): FileConfig {
  const path = configFilePath(env, cwd);
  if (!path) return { mcpServers: [] };
  const shown = relative(cwd, path).startsWith('..') ? path : relative(cwd, path) || path;
  const text = readText(path, shown);
  const YAML = loadYaml();
  const lines = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter: lines, uniqueKeys: false });
  if (doc.errors.length > 0) {
    fail(
      shown,
      doc.errors.map((error) => ({
        line: error.linePos?.[0].line,
        text: error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
      })),
    );
  }
  const duplicates = duplicateKeys(doc, lines);
  if (duplicates.length > 0)
    fail(
      shown,
      duplicates.map((d) => ({ line: d.line, text: d.message })),
    );
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    fail(shown, [{ text: error instanceof Error ? error.message : String(error) }]);
  }
  const { config, issues } = parseFileConfig(raw, { env, baseDir: dirname(path) });
  if (!config) {
    fail(
      shown,
      issues.map((issue: Issue) => ({
        line: lineOf(doc, issue.path, lines),
        text: issue.path.length ? `${pathText(issue.path)}: ${issue.message}` : issue.message,
      })),
    );
  }
  const { prompt, ...rest } = config;
  return { path, ...rest, ...(prompt ? { prompt: checkedPrompt(prompt, doc, lines, shown, cwd) } : {}) };
}

/** The prompt template, read and checked: its mistakes name the template's own file, or this file's line for an inline one. */
function checkedPrompt(prompt: PromptSource, doc: Document, lines: LineCounter, shown: string, cwd: string): PromptTemplate {
  if ('template' in prompt) {
    const { isMap, isScalar } = loadYaml();
    const root = doc.contents;
    const block = isMap(root) ? root.get('prompt', true) : undefined;
    const node = isMap(block) ? block.get('template', true) : undefined;
    const start = isScalar(node) && node.range ? lines.linePos(node.range[0]).line : undefined;
    // A block scalar (| or >) starts on the line after its indicator.
    const blockScalar = isScalar(node) && (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED');
    return PromptTemplate.compile(prompt.template, { shown, ...(start ? { firstLine: start + (blockScalar ? 1 : 0) } : {}) });
  }
  const where = relative(cwd, prompt.file).startsWith('..') ? prompt.file : relative(cwd, prompt.file);
  const text = readText(prompt.file, where);
  return PromptTemplate.compile(text, { shown: where });
}
