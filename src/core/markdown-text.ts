// Text that is not the bot's own (a display name, a reason someone typed, a file name, a tool title
// from an MCP server) written into the bot's CommonMark: escaped so every platform shows it as the
// characters it is, never as a link, emphasis, a mention or a new block. Only characters that can
// start syntax are escaped, so the escapes stay rare where a surface shows the text raw (a toast).

/** Line breaks and other control characters: the text stays on the line it is written into. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this matches
const BREAKS = /\r\n|[\u0000-\u0008\u000a-\u001f\u007f\u0085\u2028\u2029]/g;

/**
 * Code spans, emphasis and strikethrough, links and images, tables and Discord spoilers, autolinks,
 * HTML and platform tags (`<@id>`, Feishu's `<at>`), entities, and the escape character itself.
 * A `(` right after `]` too, so that even a renderer that ignores backslash escapes sees no `](`.
 * An underscore between two letters or digits (`snake_case`) cannot emphasise anything in
 * CommonMark or Discord, so it is left alone.
 */
const INLINE = /[\\`*~|[\]<]|(?<=\])\(|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])|&(?=#?[0-9A-Za-z]+;)/gu;

/** What makes a line a heading, quote, list item or setext underline. */
const LINE_START = /^(\s*)(?:([#>+=-])|(\d{1,9})([.)]))/;

/** `text` as CommonMark that renders to exactly `text` (line breaks become spaces). */
export function markdownText(text: string): string {
  const escaped = text.replace(BREAKS, ' ').replace(INLINE, '\\$&');
  return escaped.replace(LINE_START, (_all, indent: string, marker?: string, digits?: string, delimiter?: string) =>
    marker ? `${indent}\\${marker}` : `${indent}${digits}\\${delimiter}`,
  );
}
