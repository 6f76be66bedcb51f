// What a knowledge page is, validated at every way in (CLI flags, files, front matter, the model's
// write_knowledge_page arguments): a slug, a non-empty title, a summary, Markdown content, tags and
// references. Values are normalised here so the same page always hashes the same.
import { z } from 'zod';

const SLUG_HINT = 'lower-case letters, digits and . _ / - (e.g. guides/setup)';
const SLUG_PATTERN = /^[\p{Ll}\p{Lo}\p{N}](?:[\p{Ll}\p{Lo}\p{N}._-]|\/(?!\/))*$/u;

const SlugSchema = z
  .string()
  .trim()
  .min(1, 'slug is empty')
  .max(200, 'slug is longer than 200 characters')
  .regex(SLUG_PATTERN, `slug must be ${SLUG_HINT}`)
  .refine((slug) => !slug.endsWith('/') && !slug.split('/').some((part) => part === '.' || part === '..'), `slug must be ${SLUG_HINT}`);

// NUL characters and unpaired surrogates are not text: the database cannot store them faithfully.
const text = (field: string) =>
  z
    .string()
    .refine((value) => !value.includes('\0'), `${field} contains a NUL character (binary data is not text)`)
    .refine((value) => !/\p{Surrogate}/u.test(value), `${field} is not valid Unicode (it contains an unpaired surrogate)`);

const TagsSchema = z
  .union([z.array(text('a tag')), text('tags').transform((value) => value.split(','))])
  .transform((tags) => [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter(Boolean))])
  .pipe(z.array(z.string().max(60, 'a tag is longer than 60 characters')).max(50, 'more than 50 tags'));

const ReferencesSchema = z
  .array(text('a reference'))
  .transform((refs) => [...new Set(refs.map((ref) => ref.trim()).filter(Boolean))])
  .pipe(z.array(z.string().max(500, 'a reference is longer than 500 characters')).max(100, 'more than 100 references'));

/** Markdown as stored: LF line ends, no leading blank lines, no trailing whitespace. */
function normaliseContent(content: string): string {
  return content
    .replace(/\r\n?/g, '\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
}

export const PageInputSchema = z.object({
  slug: SlugSchema,
  title: text('title')
    .transform((title) => title.replace(/\s+/g, ' ').trim())
    .pipe(z.string().min(1, 'title is empty').max(300, 'title is longer than 300 characters')),
  summary: text('summary')
    .default('')
    .transform((summary) => summary.replace(/\r\n?/g, '\n').trim())
    .pipe(z.string().max(2_000, 'summary is longer than 2000 characters')),
  content: text('content')
    .default('')
    .transform(normaliseContent)
    .pipe(z.string().max(1_000_000, 'content is longer than 1,000,000 characters')),
  tags: TagsSchema.default([]),
  references: ReferencesSchema.default([]),
});

/** A page's fields, normalised. */
export type PageInput = z.output<typeof PageInputSchema>;

/** Slug for a file at `relativePath` (folders kept, extension dropped, lower case, spaces → -). */
export function slugFromPath(relativePath: string): string {
  return relativePath
    .replace(/\\/g, '/')
    .replace(/\.(md|markdown)$/i, '')
    .toLowerCase()
    .split('/')
    .map((part) =>
      part
        .normalize('NFKC')
        .replace(/[^\p{Ll}\p{Lo}\p{N}._-]+/gu, '-')
        .replace(/-{2,}/g, '-')
        .replace(/^[-.]+|-+$/g, ''),
    )
    .filter(Boolean)
    .join('/');
}

/** One line naming every problem of a failed parse, e.g. "title is empty; slug must be ...". */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.join('.');
      if (issue.code === 'invalid_type' && /^Invalid input/.test(issue.message)) {
        return `${field || 'value'} must be ${issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}`;
      }
      // Messages written for Parley name their field; zod's own ones get the field in front.
      const named = field === '' || issue.message.startsWith(String(issue.path[0]));
      return named || /^(a tag|a reference|more than)/.test(issue.message) ? issue.message : `${field}: ${issue.message}`;
    })
    .join('; ');
}
