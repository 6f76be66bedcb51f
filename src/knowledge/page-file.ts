// Markdown files with optional front matter ↔ pages. Reading: front matter (title, summary,
// tags, slug, references) wins; otherwise the title is the first heading (else the first line of
// text, else the file's name), the summary the first paragraph and the slug the file's path. Writing (export) puts every field in the front matter,
// so reading the file back yields the same page. Front matter is data only (see front-matter.ts).
import YAML from 'yaml';
import { z } from 'zod';
import type { KnowledgePageFields } from '../store/repos/knowledge.ts';
import { splitFrontMatter } from './front-matter.ts';
import { firstSentencesWithin, outline } from './markdown.ts';
import { PageFileError } from './page-error.ts';
import { describeIssues, PageInputSchema, slugFromPath, type PageInput } from './page.ts';

export { PageFileError };

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

/** Splits a file into its front matter (validated) and its Markdown body. */
export function parseFrontMatter(text: string): { frontMatter: FrontMatter; body: string } {
  const { data, body } = splitFrontMatter(text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'));
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new PageFileError('invalid front matter: expected key: value lines (a YAML mapping)');
  }
  const result = FrontMatterSchema.safeParse(data);
  if (!result.success) throw new PageFileError(`invalid front matter: ${describeIssues(result.error)}`);
  return { frontMatter: result.data, body };
}

/** The page a Markdown file describes. `relativePath` gives the slug when the front matter has none. */
export function pageFromFile(text: string, relativePath: string, overrides: Partial<PageInput> = {}): PageInput {
  const { frontMatter, body } = parseFrontMatter(text);
  const derived = outline(body);
  const slug = overrides.slug ?? frontMatter.slug ?? slugFromPath(relativePath);
  const candidate = {
    slug,
    title: overrides.title ?? frontMatter.title ?? derivedTitle(derived, relativePath, slug),
    summary: overrides.summary ?? frontMatter.summary ?? derived.summary ?? '',
    content: overrides.content ?? body,
    tags: overrides.tags ?? frontMatter.tags ?? [],
    references: overrides.references ?? frontMatter.references ?? [],
  };
  if (candidate.title.trim() === '') {
    throw new PageFileError('title is empty: give the front matter a title, or remove the title line to take it from the first line');
  }
  return parsePageInput(candidate);
}

/** A derived title is cut to this many characters (at a sentence end or a space when there is one). */
const DERIVED_TITLE_MAX_CHARS = 80;

/**
 * The title of a page without one in its front matter: the first heading, else the first line of
 * text (its first sentence, at most DERIVED_TITLE_MAX_CHARS), else the file's name ("-" and "_"
 * read as spaces), else the slug's last part (standard input has no file name).
 */
function derivedTitle(derived: ReturnType<typeof outline>, relativePath: string, slug: string): string {
  if (derived.title?.trim()) return derived.title;
  if (derived.firstLine) return firstSentencesWithin(derived.firstLine, DERIVED_TITLE_MAX_CHARS);
  const name = (relativePath.split(/[\\/]/).at(-1) ?? '').replace(/\.(md|markdown)$/i, '') || slug.split('/').at(-1) || '';
  return name.replace(/[-_]+/g, ' ').trim();
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
    // Always written: without it, import would derive a summary from the first paragraph.
    summary: page.summary,
    ...(page.tags.length ? { tags: page.tags } : {}),
    ...(page.references.length ? { references: page.references } : {}),
  };
  return `---\n${YAML.stringify(frontMatter, { lineWidth: 0 })}---\n\n${page.content}\n`;
}
