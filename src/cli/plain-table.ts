// Tables for output that is not a terminal (scripts, pipes, `parley knowledge search` run by a
// program): the same text cli-table3 prints without colours, drawn here when every cell is one
// line of characters whose width is certain, because loading and running cli-table3 is about 15 ms
// of a search's start. Anything else (line breaks, control or combining characters, emoji, other
// symbols) returns undefined and cli-table3 draws the table.

/** Terminal columns of a character code cli-table3 (string-width 4) would agree on, or 0 when unsure. */
function columns(code: number): number {
  if (code >= 0x20 && code <= 0x7e) return 1;
  // Latin-1 and Latin Extended letters (© and ® may be drawn as emoji), general punctuation ("…", dashes).
  if (code >= 0xa0 && code <= 0x2ff) return code === 0xa9 || code === 0xae ? 0 : 1;
  if (code >= 0x2000 && code <= 0x206f) return code === 0x203c || code === 0x2049 ? 0 : 1;
  // CJK (punctuation, kana, ideographs, Hangul, full-width forms) as is-fullwidth-code-point counts
  // them; the few emoji among them (〰 〽 ㊗ ㊙) are left to cli-table3.
  if (code === 0x3030 || code === 0x303d || code === 0x3297 || code === 0x3299) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0x3247 && code !== 0x303f) ||
    (code >= 0x3250 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0xa4c6) ||
    (code >= 0xa960 && code <= 0xa97c) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe10 && code <= 0xfe19) ||
    (code >= 0xfe30 && code <= 0xfe6b) ||
    (code >= 0xff01 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6)
  )
    return 2;
  return 0;
}

/** Width of `text` in terminal columns, or undefined when a character is not certain. */
function width(text: string): number | undefined {
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const n = columns(text.charCodeAt(i));
    if (n === 0) return undefined;
    total += n;
  }
  return total;
}

/** The table as cli-table3 draws it with no colours, or undefined when cli-table3 should draw it. */
export function plainTable(head: string[], rows: string[][]): string | undefined {
  const cells = [head, ...rows];
  const widths = head.map(() => 0);
  const sized: { text: string; width: number }[][] = [];
  for (const row of cells) {
    if (row.length !== head.length) return undefined;
    const line: { text: string; width: number }[] = [];
    for (const [i, text] of row.entries()) {
      const w = width(text);
      if (w === undefined) return undefined;
      widths[i] = Math.max(widths[i]!, w);
      line.push({ text, width: w });
    }
    sized.push(line);
  }
  const rule = (left: string, middle: string, right: string) => `${left}${widths.map((w) => '─'.repeat(w + 2)).join(middle)}${right}`;
  const lines = [rule('┌', '┬', '┐')];
  for (const [r, line] of sized.entries()) {
    if (r > 0) lines.push(rule('├', '┼', '┤'));
    lines.push(`│${line.map((cell, i) => ` ${cell.text}${' '.repeat(widths[i]! - cell.width)} `).join('│')}│`);
  }
  lines.push(rule('└', '┴', '┘'));
  return lines.join('\n');
}
