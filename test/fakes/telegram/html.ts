// Telegram's HTML parse mode, as the fake Bot API applies it: turns `text` into plain text plus
// message entities (offsets and lengths in UTF-16 code units), and refuses what Telegram refuses
// with the same "can't parse entities" wording: unsupported tags, unclosed or mismatched tags,
// a `<` that does not start a tag.

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
}

export class EntityParseError extends Error {
  constructor(detail: string) {
    super(`Bad Request: can't parse entities: ${detail}`);
  }
}

const TAG_TYPES: Record<string, string> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  'tg-spoiler': 'spoiler',
  span: 'spoiler',
  a: 'text_link',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
};

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

interface OpenTag {
  name: string;
  start: number;
  attributes: Record<string, string>;
}

function byteOffset(html: string, index: number): number {
  return Buffer.byteLength(html.slice(0, index), 'utf8');
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body.startsWith('#x')) return String.fromCodePoint(parseInt(body.slice(2), 16));
    if (body.startsWith('#')) return String.fromCodePoint(parseInt(body.slice(1), 10));
    return NAMED_ENTITIES[body] ?? whole;
  });
}

function parseAttributes(raw: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of raw.matchAll(/([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    attributes[match[1]!.toLowerCase()] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
  }
  for (const match of raw.matchAll(/(?:^|\s)([a-zA-Z-]+)(?=\s|$)/g)) attributes[match[1]!.toLowerCase()] ??= '';
  return attributes;
}

export function parseTelegramHtml(html: string): { text: string; entities: MessageEntity[] } {
  let text = '';
  const entities: MessageEntity[] = [];
  const open: OpenTag[] = [];
  let index = 0;
  while (index < html.length) {
    const char = html[index]!;
    if (char === '&') {
      const match = /^&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/.exec(html.slice(index, index + 12));
      if (match) {
        text += decodeEntities(match[0]);
        index += match[0].length;
      } else {
        text += '&';
        index++;
      }
      continue;
    }
    if (char !== '<') {
      text += char;
      index++;
      continue;
    }
    const end = html.indexOf('>', index);
    if (end < 0) throw new EntityParseError(`Unclosed start tag at byte offset ${byteOffset(html, index)}`);
    const inside = html.slice(index + 1, end);
    const closing = inside.startsWith('/');
    const name = /^\/?\s*([a-zA-Z][a-zA-Z0-9-]*)/.exec(inside)?.[1]?.toLowerCase();
    if (!name) throw new EntityParseError(`Unsupported start tag "${inside.slice(0, 20)}" at byte offset ${byteOffset(html, index)}`);
    if (closing) {
      const top = open.pop();
      if (!top || top.name !== name) {
        throw new EntityParseError(
          `Unmatched end tag at byte offset ${byteOffset(html, index)}, expected "</${top?.name ?? ''}>", found "</${name}>"`,
        );
      }
      const type = TAG_TYPES[top.name]!;
      const length = text.length - top.start;
      const parent = open.at(-1);
      if (top.name === 'code' && parent?.name === 'pre') {
        // <pre><code class="language-x"> is how a language is given: one pre entity.
        const language = /^language-(.+)$/.exec(top.attributes.class ?? '')?.[1];
        if (language) parent.attributes['data-language'] = language;
      } else if (length > 0) {
        const entity: MessageEntity = { type, offset: top.start, length };
        if (type === 'text_link') entity.url = top.attributes.href ?? '';
        if (type === 'pre' && top.attributes['data-language']) entity.language = top.attributes['data-language'];
        if (type === 'blockquote' && 'expandable' in top.attributes) entity.type = 'expandable_blockquote';
        entities.push(entity);
      }
    } else {
      if (!(name in TAG_TYPES)) throw new EntityParseError(`Unsupported start tag "${name}" at byte offset ${byteOffset(html, index)}`);
      const attributes = parseAttributes(inside.slice(name.length));
      if (name === 'span' && attributes.class !== 'tg-spoiler') {
        throw new EntityParseError(`Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(html, index)}`);
      }
      if (name === 'a' && !attributes.href)
        throw new EntityParseError(`Tag "a" must have attribute "href" at byte offset ${byteOffset(html, index)}`);
      open.push({ name, start: text.length, attributes });
    }
    index = end + 1;
  }
  const unclosed = open.pop();
  if (unclosed) throw new EntityParseError(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { text, entities };
}
