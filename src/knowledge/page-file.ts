// Markdown files with optional YAML front matter ↔ pages. Reading: front matter (title, summary,
// tags, slug, references) wins; otherwise the title is the first heading, the summary the first
// paragraph and the slug the file's path. Writing (export) puts every field in the front matter,
// so reading the file back yields the same page.
import matter from 'gray-matter';
import YAML from 'yaml';
import { z } from 'zod';
import type { KnowledgePageFields } from '../store/repos/knowledge.ts';
import { outline } from './markdown.ts';
import { describeIssues, PageInputSchema, slugFromPath, type PageInput } from './page.ts';

/** A file that cannot become a page; `message` is one line saying why. */
export class PageFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PageFileError';
  }
}

const scalarText = (field: string) => z.union([z.string(), z.number(), z.boolean()], { error: `${field} must be text` }).transform(String);

// Unknown keys (VitePress's prev/next, layout...) are allowed and ignored.
const FrontMatterSchema = z.object({
  slug: scalarText('slug').optional(),
  title: scalarText('title').optional(),
  summary: scalarText('summary').optional(),
  tags: z.union([z.array(scalarText('a tag')), z.string()], { error: 'tags must be a list or a comma-separated text' }).optional(),
  references: z.array(scalarText('a reference'), { error: 'references must be a list' }).optional(),
});

export type FrontMatter = z.output<typeof FrontMatterSchema>;

const yamlEngine = { engines: { yaml: (text: string): object => YAML.parse(text) as object } };

/** Splits a file into its front matter (validated) and its Markdown body. */
export function parseFrontMatter(text: string): { frontMatter: FrontMatter; body: string } {
  let parsed: { data: unknown; content: string };
  try {
    // Passing options also turns off gray-matter's cache, which would keep every file in memory.
    parsed = matter(text.replace(/\r\n?/g, '\n'), yamlEngine as never);
  } catch (error) {
    // YAML's message is one line (with the position in the front matter) and then an excerpt.
    const detail = (error instanceof Error ? error.message.split('\n')[0]! : String(error)).replace(/:\s*$/, '');
    throw new PageFileError(`invalid front matter: ${detail}`);
  }
  if (parsed.data === null || typeof parsed.data !== 'object' || Array.isArray(parsed.data)) {
    throw new PageFileError('invalid front matter: expected key: value lines (a YAML mapping)');
  }
  const result = FrontMatterSchema.safeParse(parsed.data);
  if (!result.success) throw new PageFileError(`invalid front matter: ${describeIssues(result.error)}`);
  return { frontMatter: result.data, body: parsed.content };
}

/** The page a Markdown file describes. `relativePath` gives the slug when the front matter has none. */
export function pageFromFile(text: string, relativePath: string, overrides: Partial<PageInput> = {}): PageInput {
  const { frontMatter, body } = parseFrontMatter(text);
  const derived = outline(body);
  const candidate = {
    slug: overrides.slug ?? frontMatter.slug ?? slugFromPath(relativePath),
    title: overrides.title ?? frontMatter.title ?? derived.title,
    summary: overrides.summary ?? frontMatter.summary ?? derived.summary ?? '',
    content: overrides.content ?? body,
    tags: overrides.tags ?? frontMatter.tags ?? [],
    references: overrides.references ?? frontMatter.references ?? [],
  };
  if (candidate.title === undefined || candidate.title.trim() === '') {
    throw new PageFileError('title is empty: add a title to the front matter or a # heading');
  }
  return parsePageInput(candidate);
}

/** Validates page fields from any source; throws PageFileError with every problem on one line. */
export function parsePageInput(candidate: unknown): PageInput {
  const result = PageInputSchema.safeParse(candidate);
  if (!result.success) throw new PageFileError(describeIssues(result.error));
  return result.data;
}

/** The file `export` writes for a page: every field in the front matter, then the content. */
export function renderPageFile(page: KnowledgePageFields): string {
  const frontMatter = {
    slug: page.slug,
    title: page.title,
    ...(page.summary ? { summary: page.summary } : {}),
    ...(page.tags.length ? { tags: page.tags } : {}),
    ...(page.references.length ? { references: page.references } : {}),
  };
  return `---\n${YAML.stringify(frontMatter, { lineWidth: 0 })}---\n\n${page.content}\n`;
}
