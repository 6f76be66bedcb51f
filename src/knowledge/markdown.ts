// Reads the structure of a Markdown page with markdown-it (so a `#` inside a code block is not a
// heading): its title, its first paragraph as plain text, and its sections split by heading.
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: true });
type Token = ReturnType<typeof md.parse>[number];

/** Headings up to this level start a new section; deeper ones stay inside their section. */
const SECTION_DEPTH = 3;
const SUMMARY_MAX_CHARS = 400;

interface PageSection {
  /** Position among the page's sections, from 0. */
  index: number;
  /** The headings above and including this one (the page's own `#` title excluded). Empty for the introduction. */
  path: string[];
  /** Markdown of the section, its heading line included. */
  markdown: string;
  /** Plain text of the section body (no heading, no link targets, code kept). */
  text: string;
}

export interface MarkdownOutline {
  /** First `#` heading, else the first heading of any level. */
  title?: string;
  /** The first line of text that is not a heading or code, as plain text (for a page without a heading). */
  firstLine?: string;
  /** First paragraph, as plain text. */
  summary?: string;
  sections: PageSection[];
}

// VitePress containers (`::: tip`) parse as paragraph text; their fence lines are not content.
const CONTAINER_FENCE = /^:::/;

function inlineText(token: Token): string {
  let text = '';
  for (const child of token.children ?? []) {
    if (child.type === 'text') text += CONTAINER_FENCE.test(child.content) ? ' ' : child.content;
    else if (child.type === 'code_inline') text += child.content;
    else if (child.type === 'softbreak' || child.type === 'hardbreak') text += ' ';
  }
  return text.replace(/\s+/g, ' ').trim();
}

/** The first non-empty line of a block's text, as plain text. */
function firstTextLine(token: Token): string | undefined {
  for (const line of token.content.split('\n')) {
    const inline = md.parseInline(line, {})[0];
    const text = inline ? inlineText(inline) : '';
    if (text) return text;
  }
  return undefined;
}

export function firstSentencesWithin(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const sentenceEnd = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('。'), cut.lastIndexOf('! '), cut.lastIndexOf('? '));
  if (sentenceEnd > max / 2) return cut.slice(0, sentenceEnd + 1).trim();
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trim()}…`;
}

interface SectionDraft {
  path: string[];
  startLine: number;
  text: string[];
}

export function outline(markdown: string): MarkdownOutline {
  const tokens = md.parse(markdown, {});
  const lines = markdown.split('\n');
  let title: string | undefined;
  let firstHeading: string | undefined;
  let summary: string | undefined;
  let firstLine: string | undefined;
  const drafts: SectionDraft[] = [{ path: [], startLine: 0, text: [] }];
  const stack: { level: number; text: string }[] = [];

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type === 'heading_open') {
      const level = Number(token.tag.slice(1));
      const text = inlineText(tokens[i + 1]!);
      firstHeading ??= text;
      if (level === 1 && title === undefined) {
        title = text;
        continue;
      }
      if (level > SECTION_DEPTH) {
        drafts.at(-1)!.text.push(text);
        continue;
      }
      while (stack.length && stack.at(-1)!.level >= level) stack.pop();
      stack.push({ level, text });
      drafts.push({ path: stack.map((h) => h.text), startLine: token.map?.[0] ?? 0, text: [] });
      continue;
    }
    if (token.type === 'inline' && tokens[i - 1]?.type !== 'heading_open') {
      const text = inlineText(token);
      if (!text) continue;
      firstLine ??= firstTextLine(token);
      drafts.at(-1)!.text.push(text);
      if (summary === undefined && tokens[i - 1]?.type === 'paragraph_open') summary = firstSentencesWithin(text, SUMMARY_MAX_CHARS);
    } else if (token.type === 'fence' || token.type === 'code_block') {
      drafts.at(-1)!.text.push(token.content.trim());
    }
  }

  const sections: PageSection[] = [];
  for (const [n, draft] of drafts.entries()) {
    const text = draft.text.join('\n').trim();
    if (!text) continue;
    const end = drafts[n + 1]?.startLine ?? lines.length;
    sections.push({ index: sections.length, path: draft.path, markdown: lines.slice(draft.startLine, end).join('\n').trim(), text });
  }
  return { title: title ?? firstHeading, ...(firstLine ? { firstLine } : {}), summary, sections };
}
