// Splits Markdown text into pieces of at most `max` characters for platforms with a message
// length limit. Cuts at paragraph, then line, then word boundaries; never inside a fenced code
// block unless the block alone is too long, in which case the block is closed at the cut and
// reopened (same fence and language) in the next piece, so every piece renders correctly.

interface Fence {
  /** Offset of the opening fence line. */
  start: number;
  /** Offset just past the closing fence line (or the end of the text when unclosed). */
  end: number;
  /** The opening line, e.g. "```ts". */
  opener: string;
  /** The fence characters, e.g. "```". */
  marker: string;
}

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})([^\n]*)$/;

function findFences(text: string): Fence[] {
  const fences: Fence[] = [];
  let open: { start: number; opener: string; marker: string } | undefined;
  let offset = 0;
  for (const line of text.split('\n')) {
    const match = FENCE_LINE.exec(line);
    if (match) {
      const marker = match[1] ?? '';
      if (!open) {
        open = { start: offset, opener: line.trim(), marker };
      } else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && (match[2] ?? '').trim() === '') {
        fences.push({ ...open, end: offset + line.length });
        open = undefined;
      }
    }
    offset += line.length + 1;
  }
  if (open) fences.push({ ...open, end: text.length });
  return fences;
}

function fenceAt(fences: Fence[], position: number): Fence | undefined {
  return fences.find((f) => position > f.start && position < f.end);
}

/** Last index of `needle` in `text` before `limit` whose cut position satisfies `ok`. */
function lastCut(text: string, needle: RegExp, limit: number, ok: (cut: number) => boolean): number {
  let best = -1;
  needle.lastIndex = 0;
  for (let m = needle.exec(text); m && m.index < limit; m = needle.exec(text)) {
    const cut = m.index;
    if (cut > 0 && ok(cut)) best = cut;
  }
  return best;
}

function safeHardCut(text: string, limit: number): number {
  // Do not cut a surrogate pair in half.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

export function splitMessage(text: string, max: number): string[] {
  if (max < 16) throw new RangeError('splitMessage: max must be at least 16 characters');
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const fences = findFences(rest);
    const outside = (cut: number) => fenceAt(fences, cut) === undefined;
    let cut = lastCut(rest, /\n\s*\n/g, max, outside);
    if (cut < 0) cut = lastCut(rest, /\n/g, max, outside);
    let reopen = '';
    let close = '';
    if (cut < 0) {
      const fence = fenceAt(fences, max);
      if (fence) {
        // The code block alone is longer than a message: cut inside it on a line boundary.
        close = `\n${fence.marker}`;
        const limit = max - close.length;
        cut = lastCut(rest, /\n/g, limit, (c) => c > fence.start + fence.opener.length);
        if (cut < 0) cut = safeHardCut(rest, limit);
        reopen = `${fence.opener}\n`;
      } else {
        cut = lastCut(rest, /\s/g, max, outside);
        if (cut < 0) cut = safeHardCut(rest, max);
      }
    }
    const piece = rest.slice(0, cut).replace(/\s+$/, '') + close;
    if (piece.trim()) pieces.push(piece);
    rest = reopen ? reopen + rest.slice(rest[cut] === '\n' ? cut + 1 : cut) : rest.slice(cut).replace(/^\s+/, '');
  }
  if (rest.trim()) pieces.push(rest);
  return pieces;
}
