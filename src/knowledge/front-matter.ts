// Front matter is data, never code. A file starts with front matter when its first line is `---`,
// optionally followed by a language tag (`yaml`, `yml` or `json`); it ends at the next `---` line.
// YAML is read with the core schema and no custom or extra tags; JSON with JSON.parse. Any other
// language is refused before anything is parsed (gray-matter used to run `---js` as JavaScript).
import YAML from 'yaml';
import { PageFileError } from './page-error.ts';

export interface SplitFile {
  /** The parsed front matter (`{}` when there is none or it is empty). */
  data: unknown;
  body: string;
}

const OPENING = /^---(?!-)([^\n]*)(?:\n|$)/;
const CLOSING = /^---[ \t]*$/m;
const FIRST_YAML_LINE = 2; // the opening `---` is line 1 of the file
// Room for every field at its limit (100 references of 500 characters...). YAML parsing is far from
// linear on some shapes (many keys, long flow collections), so a hostile file could stall an import.
const MAX_FRONT_MATTER_CHARS = 100_000;

/** Splits LF-normalised `text` into its parsed front matter and the Markdown after it. */
export function splitFrontMatter(text: string): SplitFile {
  const opening = OPENING.exec(text);
  if (!opening) return { data: {}, body: text };
  const language = opening[1]!.trim();
  const parse = parserFor(language);
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) throw new PageFileError('invalid front matter: it is not closed (add a --- line after it)');
  const source = rest.slice(0, closing.index);
  if (source.length > MAX_FRONT_MATTER_CHARS) throw new PageFileError('invalid front matter: it is longer than 100,000 characters');
  const afterClosing = rest.slice(closing.index + closing[0].length);
  return {
    data: source.trim() === '' ? {} : (parse(source) ?? {}),
    body: afterClosing.startsWith('\n') ? afterClosing.slice(1) : afterClosing,
  };
}

function parserFor(language: string): (source: string) => unknown {
  if (language === '' || /^ya?ml$/i.test(language)) return parseYaml;
  if (/^json$/i.test(language)) return parseJson;
  const shown = JSON.stringify(language.length > 20 ? `${language.slice(0, 20)}…` : language);
  throw new PageFileError(`front matter in ${shown} is not allowed: only YAML (or JSON) is read, and nothing in a page is run`);
}

function parseYaml(source: string): unknown {
  // resolveKnownTags: false keeps YAML 1.1 extras (!!binary, !!timestamp, !!set...) out as well.
  // yaml's own uniqueKeys check is quadratic; duplicates that matter (top level) are found below.
  const doc = YAML.parseDocument(source, { schema: 'core', resolveKnownTags: false, uniqueKeys: false });
  const error = doc.errors[0];
  if (error) throw new PageFileError(`invalid front matter: ${yamlMessage(error)}`);
  const duplicate = duplicateKey(doc.contents);
  if (duplicate !== undefined)
    throw new PageFileError(`invalid front matter: the key ${JSON.stringify(duplicate.slice(0, 40))} appears twice`);
  const tag = doc.warnings.find((warning) => warning.code === 'TAG_RESOLVE_FAILED');
  if (tag) {
    const name = /Unresolved tag: (\S+)/.exec(tag.message)?.[1]?.replace('tag:yaml.org,2002:', '!!') ?? 'an unknown tag';
    throw new PageFileError(`invalid front matter: the YAML tag ${name} is not allowed (front matter is plain data)`);
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    throw new PageFileError(`invalid front matter: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`);
  }
}

function duplicateKey(contents: unknown): string | undefined {
  if (!YAML.isMap(contents)) return undefined;
  const seen = new Set<string>();
  for (const { key } of contents.items) {
    const name = YAML.isScalar(key) ? String(key.value) : String(key);
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/** YAML's message with the line counted in the file (it counts from the first front matter line). */
function yamlMessage(error: YAML.YAMLError): string {
  const line = error.linePos?.[0];
  const what = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?\s*$/, '');
  return line ? `${what} at line ${line.line + FIRST_YAML_LINE - 1}, column ${line.col}` : what;
}

function parseJson(source: string): unknown {
  try {
    return JSON.parse(source) as unknown;
  } catch (cause) {
    throw new PageFileError(`invalid front matter: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`);
  }
}
