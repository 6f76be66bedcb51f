// The system prompt's base as a Liquid template (liquidjs): variables such as {{ botName }} and
// {{ chatTitle }}, conditionals such as {% if chatType == "group" %}. Checked when it is read, at
// start: a syntax error, an unknown filter or a variable Parley does not provide is one line with
// the file and the line, and start-up stops. Every variable is the same from turn to turn of a chat
// (the date changes once a day), so the prompt stays byte-identical and the provider's prompt
// cache keeps working. A prompt without tags is plain text and never loads the template library.
import { createRequire } from 'node:module';
import type { Liquid, Template } from 'liquidjs';
import { ConfigError } from '../core/env.ts';

/** What a template may use. */
export interface PromptVariables {
  /** PARLEY_BOT_NAME. */
  botName: string;
  /** The channel's id (telegram, discord, feishu, web, or a named instance such as telegram-support). */
  channel: string;
  chatType: 'direct' | 'group';
  /** The group's or channel's name where the platform sends it; empty otherwise (direct chats, unnamed chats). */
  chatTitle: string;
  /** The locale the bot writes its own texts in (en, zh-CN). */
  locale: string;
  /** Today, YYYY-MM-DD (UTC). */
  date: string;
}

const PROMPT_VARIABLES: readonly (keyof PromptVariables)[] = ['botName', 'channel', 'chatType', 'chatTitle', 'locale', 'date'];

/** Where a template came from, for its error lines: a file path or a variable's name, and the line its text starts on there. */
export interface TemplateOrigin {
  shown: string;
  firstLine?: number;
}

let liquid: Liquid | undefined;
/** The engine (strict filters; variables are checked statically at compile time) loads with the first template that has tags. */
function engine(): Liquid {
  if (liquid) return liquid;
  const { Liquid: Engine } = createRequire(import.meta.url)('liquidjs') as typeof import('liquidjs');
  liquid = new Engine({ strictFilters: true, strictVariables: true });
  // A prompt is one text: it reads no other files.
  for (const tag of ['include', 'render', 'layout']) {
    liquid.registerTag(tag, {
      parse() {
        throw new Error(`{% ${tag} %} is not available in a prompt template (it would read another file)`);
      },
      render() {
        return '';
      },
    });
  }
  return liquid;
}

const TAGS = /\{\{|\{%/;

export class PromptTemplate {
  readonly #source: string;
  readonly #parsed: Template[] | undefined;
  /** Whether the template places the date itself (else the prompt ends with it). */
  readonly usesDate: boolean;

  private constructor(source: string, parsed: Template[] | undefined, usesDate: boolean) {
    this.#source = source;
    this.#parsed = parsed;
    this.usesDate = usesDate;
  }

  /** Parses and checks `source`; throws a ConfigError of one line ("<where>:<line>: ...") on the first mistake. */
  static compile(source: string, origin: TemplateOrigin): PromptTemplate {
    if (!TAGS.test(source)) return new PromptTemplate(source, undefined, false);
    const lineOf = (row: number) => (origin.firstLine ?? 1) + row - 1;
    let parsed: Template[];
    try {
      parsed = engine().parse(source);
    } catch (error) {
      const { message, line } = liquidError(error);
      throw new ConfigError(`Invalid prompt template: ${origin.shown}${line ? `:${lineOf(line)}` : ''}: ${message}`);
    }
    let globals: Record<string, { location: { row: number } }[]>;
    try {
      globals = engine().analyzeSync(parsed).globals;
    } catch (error) {
      throw new ConfigError(`Invalid prompt template: ${origin.shown}: ${liquidError(error).message}`);
    }
    const allowed = new Set<string>(PROMPT_VARIABLES);
    const unknown = Object.entries(globals)
      .filter(([name]) => !allowed.has(name))
      .map(([name, uses]) => ({ name, row: Math.min(...uses.map((use) => use.location.row)) }))
      .sort((a, b) => a.row - b.row)[0];
    if (unknown) {
      throw new ConfigError(
        `Invalid prompt template: ${origin.shown}:${lineOf(unknown.row)}: unknown variable "${unknown.name}" (known: ${PROMPT_VARIABLES.join(', ')})`,
      );
    }
    return new PromptTemplate(source, parsed, 'date' in globals);
  }

  render(variables: PromptVariables): string {
    if (!this.#parsed) return this.#source;
    return String(engine().renderSync(this.#parsed, { ...variables })).trim();
  }
}

/** liquidjs ends its messages with ", file:x, line:N, col:M"; the line is reported our way instead. */
function liquidError(error: unknown): { message: string; line?: number } {
  const text = error instanceof Error ? error.message : String(error);
  const line = /,? ?(?:file:[^,]*, )?line:(\d+), col:\d+$/.exec(text);
  return {
    message: (line ? text.slice(0, line.index) : text).split('\n')[0]!.trim(),
    ...(line ? { line: Number(line[1]) } : {}),
  };
}
