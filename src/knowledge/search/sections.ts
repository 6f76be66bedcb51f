// A page's sections for search: split at headings of level 1-3 (the page's first `#` title
// excluded), each with its Markdown and its text as plain words. The search index, the snippets,
// the automatic context and read_knowledge_page's `section` all use this one split, so a section
// number in the index always means the same stretch of the page.
// Indexing splits every page, so this is a line scanner, not a full Markdown parser: it knows
// fenced code (a `#` there is code), ATX and setext headings, and strips link targets, images,
// HTML tags and list numbers from the text. It agrees with markdown-it on ordinary pages.

/** Headings up to this level start a new section; deeper ones stay inside their section. */
const SECTION_DEPTH = 3;

export interface PageSection {
  /** Position among the page's sections, from 0. */
  index: number;
  /** The headings above and including this one (the page's own `#` title excluded). Empty for the introduction. */
  path: string[];
  /** Markdown of the section, its heading line included. */
  markdown: string;
  /** Plain text of the section body (no heading, no link targets, code kept). */
  text: string;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const PARAGRAPH_BREAKER = /^ {0,3}(?:[-+*>|]|\d{1,9}[.)](?:\s|$)|<|$)/;
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*\S/;
const CONTAINER_FENCE = /^\s*:::+\s*[\w-]*/;
const LIST_NUMBER = /^(\s*(?:>\s*)*)\d{1,9}[.)](?=\s)/;
const IMAGE = /!\[[^\]]*\]\([^)]*\)/g;
const LINK_TARGET = /\]\((?:[^()\s]|\([^)]*\))*(?:\s+"[^"]*")?\)/g;
const AUTOLINK = /<((?:https?|mailto|ftp):[^>\s]*)>/g;
const HTML_TAG = /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>|<!--.*?-->/g;
const CODE_SPAN = /(`+)(.+?)\1(?!`)/g;
const ENTITY = /&(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/gi;

function stripMarkup(text: string): string {
  // Most lines have none of the characters these patterns start with: skip the five scans then.
  let out = text;
  if (out.includes('](')) out = out.replace(IMAGE, ' ').replace(LINK_TARGET, ']');
  if (out.includes('<')) out = out.replace(AUTOLINK, ' $1 ').replace(HTML_TAG, ' ');
  if (out.includes('&')) out = out.replace(ENTITY, ' ');
  return out;
}

/** A line of Markdown as the words a reader sees (code spans kept as they are). */
function plainLine(raw: string, codeSeparator = ' '): string {
  if (LINK_DEFINITION.test(raw)) return '';
  const line = raw.replace(CONTAINER_FENCE, '').replace(LIST_NUMBER, '$1');
  if (!line.includes('`')) return stripMarkup(line);
  let out = '';
  let last = 0;
  for (const match of line.matchAll(CODE_SPAN)) {
    out += `${stripMarkup(line.slice(last, match.index))}${codeSeparator}${match[2]}${codeSeparator}`;
    last = match.index + match[0].length;
  }
  return out + stripMarkup(line.slice(last));
}

// Emphasis and link brackets, as markdown-it leaves them out of a heading's text.
const STRONG = /(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g;
const EMPHASIS = /(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])/g;
const LINK_TEXT = /\[([^\]]*)\]/g;

function headingText(raw: string): string {
  return plainLine(raw, '').replace(STRONG, '$2').replace(EMPHASIS, '$2').replace(LINK_TEXT, '$1').replace(/\s+/g, ' ').trim();
}

interface Draft {
  path: string[];
  startLine: number;
  text: string[];
}

export interface SectionOutline {
  /** Text of the first `#` heading (not part of any section). */
  title?: string;
  sections: PageSection[];
}

export function splitSections(markdown: string): SectionOutline {
  const lines = markdown.split('\n');
  const drafts: Draft[] = [{ path: [], startLine: 0, text: [] }];
  const stack: { level: number; text: string }[] = [];
  let title: string | undefined;
  let fence: { char: string; length: number } | undefined;
  let code: string[] = [];
  // Lines of the paragraph being read: a setext underline turns them into a heading.
  let paragraphStart = -1;

  const heading = (level: number, text: string, line: number) => {
    if (level === 1 && title === undefined) {
      title = text;
      return;
    }
    if (level > SECTION_DEPTH) {
      drafts.at(-1)!.text.push(text);
      return;
    }
    while (stack.length && stack.at(-1)!.level >= level) stack.pop();
    stack.push({ level, text });
    drafts.push({ path: stack.map((h) => h.text), startLine: line, text: [] });
  };

  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) {
        const body = code.join('\n').trim();
        if (body) drafts.at(-1)!.text.push(body);
        fence = undefined;
      } else code.push(line);
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open && !(open[1]![0] === '`' && open[2]!.includes('`'))) {
      fence = { char: open[1]![0]!, length: open[1]!.length };
      code = [];
      paragraphStart = -1;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      heading(atx[1]!.length, headingText(atx[2] ?? ''), n);
      paragraphStart = -1;
      continue;
    }
    const setext = paragraphStart >= 0 ? SETEXT.exec(line) : null;
    if (setext) {
      // The paragraph's lines were taken as text; they are the heading instead.
      const count = n - paragraphStart;
      const draft = drafts.at(-1)!;
      const text = headingText(draft.text.splice(draft.text.length - count, count).join(' '));
      if (text) heading(setext[1]![0] === '=' ? 1 : 2, text, paragraphStart);
      paragraphStart = -1;
      continue;
    }
    if (line.trim() === '') {
      paragraphStart = -1;
      continue;
    }
    if (paragraphStart < 0 && !PARAGRAPH_BREAKER.test(line) && !/^( {4}|\t)/.test(line)) paragraphStart = n;
    else if (paragraphStart >= 0 && PARAGRAPH_BREAKER.test(line)) paragraphStart = -1;
    drafts.at(-1)!.text.push(plainLine(line).trim());
  }
  if (fence) {
    const body = code.join('\n').trim();
    if (body) drafts.at(-1)!.text.push(body);
  }

  const sections: PageSection[] = [];
  for (const [n, draft] of drafts.entries()) {
    const text = draft.text.filter(Boolean).join('\n').trim();
    if (!text) continue;
    const end = drafts[n + 1]?.startLine ?? lines.length;
    sections.push({ index: sections.length, path: draft.path, markdown: lines.slice(draft.startLine, end).join('\n').trim(), text });
  }
  return { title, sections };
}
