// docs/configuration.md against the code: every environment variable the code reads (src/,
// adapters/, bin/, scripts/) has exactly one row there, and every variable documented there is read
// somewhere (tests and benchmarks count for the development variables). A variable is a name with
// one of Parley's prefixes anywhere in the code (comments too: a name an error message or a comment
// gives is one people will look up), or any name read as `env.NAME` / `env['NAME']`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'configuration.md');
const PREFIXED = /\b(?:(?:PARLEY|OPENAI|TELEGRAM|DISCORD|FEISHU)_[A-Z0-9_]*[A-Z0-9_]|DATABASE_URL)\b/g;
const READ = /\benv(?:\?\.|\.|\[['"])([A-Z][A-Z0-9_]+)/g;
const CONSTANT = /\bconst ([A-Z][A-Z0-9_]+)\s*[=:]/g;

/** Names that look like variables but are not read as configuration, each with the reason. */
const NOT_CONFIGURATION: Record<string, string> = {
  PARLEY_DROPPED: 'a marker in Discord dispatch data (adapters/discord/adapter.ts), not a variable',
  PARLEY_WEB_HOST: 'retired before 0.1.0: start-up refuses it, naming PARLEY_HTTP_HOST',
  PARLEY_WEB_PORT: 'retired before 0.1.0: start-up refuses it, naming PARLEY_HTTP_PORT',
  TELEGRAM_WEBHOOK_HOST: 'retired before 0.1.0: start-up refuses it, naming PARLEY_HTTP_HOST',
  TELEGRAM_WEBHOOK_PORT: 'retired before 0.1.0: start-up refuses it, naming PARLEY_HTTP_PORT',
  FEISHU_WEBHOOK_HOST: 'retired before 0.1.0: start-up refuses it, naming PARLEY_HTTP_HOST',
  FEISHU_WEBHOOK_PORT: 'retired before 0.1.0: start-up refuses it, naming PARLEY_HTTP_PORT',
};

function filesUnder(dir: string, accept: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'public') out.push(...filesUnder(path, accept));
    } else if (accept(name)) out.push(path);
  }
  return out;
}

const isCode = (name: string) => /\.(ts|mts|mjs|js)$/.test(name);
const codeIn = (...dirs: string[]) => dirs.flatMap((dir) => filesUnder(join(ROOT, dir), isCode));

/** `PARLEY_APPROVAL_` (a family read by its prefix) stands for every name that begins with it. */
function namesIn(files: string[]): Map<string, string> {
  const constants = new Set<string>();
  const texts = files.map((file) => [relative(ROOT, file), readFileSync(file, 'utf8')] as const);
  for (const [, text] of texts) for (const match of text.matchAll(CONSTANT)) constants.add(match[1]!);
  const found = new Map<string, string>();
  for (const [file, text] of texts) {
    for (const match of text.matchAll(PREFIXED)) if (!constants.has(match[0]) && !found.has(match[0])) found.set(match[0], file);
    for (const match of text.matchAll(READ)) if (!found.has(match[1]!)) found.set(match[1]!, file);
  }
  return found;
}

/** Each table row's variables: the backticked names in its first cell (`PARLEY_APPROVAL_<TOOL>` is the family). */
function documentedRows(): string[][] {
  const rows: string[][] = [];
  for (const line of readFileSync(DOC, 'utf8').split('\n')) {
    const first = /^\|([^|]+)\|/.exec(line)?.[1];
    if (!first) continue;
    const names = [...first.matchAll(/`([A-Z][A-Z0-9_]*)(?:<[A-Z]+>)?`/g)].map((match) => match[1]!);
    if (names.length) rows.push(names);
  }
  return rows;
}

const documentedAs = (documented: string[], name: string) =>
  documented.includes(name) || (name.endsWith('_') && documented.some((doc) => doc.startsWith(name)));

describe('docs/configuration.md', () => {
  const rows = documentedRows();
  const documented = rows.flat();

  it('documents every variable the code reads, once', () => {
    const read = namesIn(codeIn('src', 'adapters', 'bin', 'scripts'));
    const missing = [...read]
      .filter(([name]) => !NOT_CONFIGURATION[name] && !documentedAs(documented, name))
      .map(([n, f]) => `${n} (${f})`);
    expect(missing, 'variables the code reads that docs/configuration.md does not document').toEqual([]);
    const twice = documented.filter((name, i) => documented.indexOf(name) !== i);
    expect(twice, 'variables documented in more than one row').toEqual([]);
    expect(read.size).toBeGreaterThan(60);
  });

  it('documents nothing the code does not read', () => {
    const everywhere = namesIn(codeIn('src', 'adapters', 'bin', 'scripts', 'test', 'bench'));
    const unknown = documented.filter(
      (name) => !everywhere.has(name) && ![...everywhere.keys()].some((n) => n.endsWith('_') && name === n),
    );
    expect(unknown, 'documented variables no code reads').toEqual([]);
  });

  it('lists no documented variable as "not configuration"', () => {
    expect(documented.filter((name) => NOT_CONFIGURATION[name])).toEqual([]);
  });
});
