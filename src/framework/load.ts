// Finds and loads a project's parley.config.ts (or .mts, .js, .mjs) in the working directory: Node
// imports it as it is, TypeScript included (its built-in type stripping: Node 22.18 or newer, no
// build step). Its default export is checked against the config schema. Anything wrong stops
// start-up with one message naming the file and, where there is one, the line.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { errorText } from '../core/errors.ts';
import { EMPTY_CONFIG, type ParleyConfig, ParleyConfigSchema } from './config.ts';

const CONFIG_FILES = ['parley.config.ts', 'parley.config.mts', 'parley.config.js', 'parley.config.mjs'] as const;

/** What is wrong with the project's config module; the message names the file (and line). */
export class ProjectConfigError extends Error {
  override name = 'ProjectConfigError';
}

/** The config module in `dir`, if any; two of them is an error (which one would count is not obvious). */
function findProjectConfig(dir: string): string | undefined {
  const found = CONFIG_FILES.filter((name) => existsSync(join(dir, name)));
  if (found.length > 1) throw new ProjectConfigError(`found ${found.join(' and ')} in ${dir}: keep one of them`);
  return found[0] && join(dir, found[0]);
}

/** `file:line:column` of the failure inside the project (not in node_modules), as far as the error tells. */
function whereInProject(error: unknown, dir: string): { file: string; line: number; column?: number; frame?: string } | undefined {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  // A syntax error (Node's own parse or its type stripping): the stack begins with "path:line" and the code frame.
  const header = /^(file:\/\/\S+|\/\S+):(\d+)\n/.exec(stack);
  if (header) {
    const file = header[1]!.startsWith('file:') ? fileURLToPath(header[1]!) : header[1]!;
    // Then the source, down to the line that points at the fault with ^: that line and the one above it.
    const lines = stack.slice(header[0].length).split('\n');
    const caret = lines.findIndex((line) => /^\s*\^+\s*$/.test(line));
    return { file, line: Number(header[2]), ...(caret > 0 ? { frame: `${lines[caret - 1]}\n${lines[caret]}` } : {}) };
  }
  const project = pathToFileURL(dir).href;
  for (const match of stack.matchAll(/(file:\/\/[^\s)]+):(\d+):(\d+)/g)) {
    const url = match[1]!;
    if (!url.startsWith(`${project}/`) || url.includes('/node_modules/')) continue;
    return { file: fileURLToPath(url), line: Number(match[2]), column: Number(match[3]) };
  }
  return undefined;
}

function problemsOf(error: z.ZodError): string {
  return error.issues.map((issue) => `  - ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`).join('\n');
}

/** Loads the project's config module from `dir`; the empty config when there is none. */
export async function loadProjectConfig(dir: string): Promise<{ config: ParleyConfig; file?: string }> {
  const file = findProjectConfig(dir);
  if (!file) return { config: EMPTY_CONFIG };
  const name = relative(dir, file);
  if (/\.m?ts$/.test(file) && !process.features.typescript) {
    throw new ProjectConfigError(
      `${name} is TypeScript, which needs Node.js 22.18 or newer (type stripping); this is Node.js ${process.versions.node}. Upgrade Node.js, or write parley.config.mjs.`,
    );
  }
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    const where = whereInProject(error, dir);
    const at = where ? `${relative(dir, where.file)}:${where.line}${where.column ? `:${where.column}` : ''}` : name;
    const kind = error instanceof Error ? `${error.name}: ` : '';
    const frame = where?.frame ? `\n${where.frame}` : '';
    throw new ProjectConfigError(`could not load ${name}: ${at}: ${kind}${errorText(error)}${frame}`);
  }
  if (module.default === undefined) {
    throw new ProjectConfigError(`${name} has no default export: end it with \`export default defineConfig({ ... })\``);
  }
  const parsed = ParleyConfigSchema.safeParse(module.default);
  if (!parsed.success) throw new ProjectConfigError(`${name}: the configuration is not valid:\n${problemsOf(parsed.error)}`);
  return { config: parsed.data, file };
}
