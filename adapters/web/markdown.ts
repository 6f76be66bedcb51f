// Renders the bot's Markdown to HTML for the page. Raw HTML in the text is escaped (html: false),
// links may only be http(s) or mailto and open in a new tab without access to this page, and
// images become links so a model cannot make the browser fetch arbitrary URLs.
import MarkdownIt from 'markdown-it';

const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto']);

function isSafeLink(url: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim())?.[1]?.toLowerCase();
  return scheme === undefined || ALLOWED_SCHEMES.has(scheme);
}

export type MarkdownRenderer = (markdown: string) => string;

export function createMarkdownRenderer(): MarkdownRenderer {
  const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
  md.validateLink = isSafeLink;

  const renderDefault = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    token.attrSet('target', '_blank');
    token.attrSet('rel', 'noopener noreferrer nofollow');
    return renderDefault(tokens, idx, options, env, self);
  };

  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const src = String(token.attrGet('src') ?? '');
    const alt = self.renderInlineAsText(token.children ?? [], options, env) || src;
    const { escapeHtml } = md.utils;
    return `<a href="${escapeHtml(src)}" target="_blank" rel="noopener noreferrer nofollow">${escapeHtml(`🖼 ${alt}`)}</a>`;
  };

  return (markdown) => md.render(markdown);
}
