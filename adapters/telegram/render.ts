// CommonMark from the model → Telegram's HTML parse mode. markdown-it parses; this file walks its
// tokens and emits only the tags Telegram supports, escaping every piece of text. Raw HTML in the
// model's output is shown as text. Lists become bullet lines, headings bold lines, tables a
// monospaced block. The visible text stays about as long as the Markdown source (markers removed),
// so the core's split at 4096 source characters keeps messages within Telegram's limit; in the rare
// case it does not, the adapter sends the source as plain text.
import { createRequire } from 'node:module';
import type MarkdownItClass from 'markdown-it';
import type { MarkdownIt, Token } from 'markdown-it';

let markdown: MarkdownIt | undefined;

/** markdown-it (about 8 MB resident) loads at the first answer that needs parsing, not at start. */
function parser(): MarkdownIt {
  if (!markdown) {
    const Parser = createRequire(import.meta.url)('markdown-it') as typeof MarkdownItClass;
    markdown = new Parser('default', { html: false, linkify: false, typographer: false });
  }
  return markdown;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, '&quot;');
}

/** Telegram accepts these in `<a href>`; anything else (relative links...) stays plain text. */
const LINKABLE = /^(https?:\/\/|tg:\/\/|mailto:)/i;

const INLINE_TAGS: Record<string, string> = {
  strong_open: '<b>',
  strong_close: '</b>',
  em_open: '<i>',
  em_close: '</i>',
  s_open: '<s>',
  s_close: '</s>',
};

function renderInline(tokens: Token[]): string {
  let out = '';
  // A link whose URL Telegram would refuse is rendered as its text followed by the URL.
  const openLinks: (string | undefined)[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
        out += escapeHtml(token.content);
        break;
      case 'softbreak':
      case 'hardbreak':
        out += '\n';
        break;
      case 'code_inline':
        out += `<code>${escapeHtml(token.content)}</code>`;
        break;
      case 'link_open': {
        const href = String(token.attrGet('href') ?? '');
        if (LINKABLE.test(href)) {
          out += `<a href="${escapeAttribute(href)}">`;
          openLinks.push(undefined);
        } else {
          openLinks.push(href);
        }
        break;
      }
      case 'link_close': {
        const unlinked = openLinks.pop();
        out += unlinked === undefined ? '</a>' : unlinked ? ` (${escapeHtml(unlinked)})` : '';
        break;
      }
      case 'image': {
        const src = String(token.attrGet('src') ?? '');
        const alt = token.content || 'image';
        out += LINKABLE.test(src) && openLinks.length === 0 ? `<a href="${escapeAttribute(src)}">${escapeHtml(alt)}</a>` : escapeHtml(alt);
        break;
      }
      default:
        out += INLINE_TAGS[token.type] ?? escapeHtml(token.content);
    }
  }
  return out;
}

/** Plain text of inline tokens (table cells are shown monospaced, where tags cannot go). */
function plainInline(tokens: Token[]): string {
  return tokens
    .map((token) =>
      token.type === 'softbreak' || token.type === 'hardbreak' ? ' ' : token.type === 'image' ? token.content : token.content,
    )
    .join('');
}

/** Accumulates output; block separators are only written once content follows them. */
class HtmlWriter {
  out = '';
  #pending = '';
  #atBlockStart = true;

  /** Content (text or an opening tag): writes any pending separator first. */
  write(html: string): void {
    if (this.out && !this.#atBlockStart) this.out += this.#pending;
    this.#pending = '';
    this.#atBlockStart = false;
    this.out += html;
  }

  /** An opening tag or list marker: the next block starts right after it, without a separator. */
  open(html: string): void {
    this.write(html);
    this.#atBlockStart = true;
  }

  /** A closing tag: glued to the content it closes, before any pending separator. */
  close(html: string): void {
    this.out += html;
    this.#atBlockStart = false;
  }

  /** Ask for at least this separator before the next content. */
  separate(separator: '\n' | '\n\n'): void {
    if (this.#atBlockStart) return;
    if (this.#pending.length < separator.length) this.#pending = separator;
  }
}

interface ListState {
  ordered: boolean;
}

function renderTable(tokens: Token[], start: number): { html: string; end: number } {
  const rows: string[][] = [];
  let row: string[] = [];
  let index = start;
  for (; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token.type === 'table_close') break;
    if (token.type === 'tr_open') row = [];
    else if (token.type === 'inline') row.push(plainInline(token.children ?? []).trim());
    else if (token.type === 'tr_close') rows.push(row);
  }
  return { html: `<pre>${escapeHtml(rows.map((cells) => cells.join(' | ')).join('\n'))}</pre>`, end: index };
}

function codeBlock(content: string, info: string): string {
  const code = escapeHtml(content.replace(/\n$/, ''));
  const language = /^[\w+#.-]{1,32}/.exec(info.trim())?.[0];
  return language ? `<pre><code class="language-${language}">${code}</code></pre>` : `<pre>${code}</pre>`;
}

/**
 * One line with no character that can start Markdown syntax (nor an entity, a tag, an escape or a
 * list, quote or heading marker at its start): one paragraph whose text is the line itself.
 */
const PLAIN_LINE = /^(?![-+=>]|\d+[.)])[^\s`*_[\]<>&!#|~\\\0](?:[^\n\r`*_[\]<>&!#|~\\\0]*[^\s`*_[\]<>&!#|~\\\0])?$/;

/** Renders CommonMark as Telegram HTML (parse_mode "HTML"). */
export function markdownToTelegramHtml(source: string): string {
  // Many chat answers are one plain line: the parse would return it as it is (a property test checks).
  return PLAIN_LINE.test(source) ? source : parsedToTelegramHtml(source);
}

/** markdownToTelegramHtml through the parser, whatever the text. */
export function parsedToTelegramHtml(source: string): string {
  const tokens = parser().parse(source, {});
  const writer = new HtmlWriter();
  const lists: ListState[] = [];
  let quoteDepth = 0;

  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    switch (token.type) {
      case 'paragraph_open':
        writer.separate(token.hidden ? '\n' : '\n\n');
        break;
      case 'paragraph_close':
        writer.separate(token.hidden ? '\n' : '\n\n');
        break;
      case 'heading_open':
        writer.separate('\n\n');
        writer.write('<b>');
        break;
      case 'heading_close':
        writer.close('</b>');
        writer.separate('\n\n');
        break;
      case 'inline':
        writer.write(renderInline(token.children ?? []));
        break;
      case 'bullet_list_open':
      case 'ordered_list_open':
        writer.separate(lists.length ? '\n' : '\n\n');
        lists.push({ ordered: token.type === 'ordered_list_open' });
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        writer.separate(lists.length ? '\n' : '\n\n');
        break;
      case 'list_item_open': {
        writer.separate('\n');
        const list = lists.at(-1);
        const indent = '  '.repeat(Math.max(0, lists.length - 1));
        writer.open(`${indent}${list?.ordered ? `${token.info || '1'}.` : '•'} `);
        break;
      }
      case 'list_item_close':
        writer.separate('\n');
        break;
      case 'blockquote_open':
        writer.separate('\n\n');
        // Telegram does not nest quotes: only the outermost becomes one.
        if (quoteDepth++ === 0) writer.open('<blockquote>');
        break;
      case 'blockquote_close':
        if (--quoteDepth === 0) writer.close('</blockquote>');
        writer.separate('\n\n');
        break;
      case 'fence':
      case 'code_block':
        writer.separate('\n\n');
        writer.write(codeBlock(token.content, token.info));
        writer.separate('\n\n');
        break;
      case 'hr':
        writer.separate('\n\n');
        writer.write('———');
        writer.separate('\n\n');
        break;
      case 'table_open': {
        writer.separate('\n\n');
        const table = renderTable(tokens, index);
        writer.write(table.html);
        writer.separate('\n\n');
        index = table.end;
        break;
      }
      default:
        break;
    }
  }
  return writer.out;
}
