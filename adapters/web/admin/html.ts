// A tagged template for the admin pages' HTML: every interpolated value is escaped unless it is
// already Html (a nested template or a vetted fragment such as the Markdown renderer's output).
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

function render(part: Part): string {
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false || part === true) return '';
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (const [i, value] of values.entries()) out += render(value) + strings[i + 1]!;
  return new Html(out);
}

/** Trusted markup (sanitised elsewhere). */
export function trusted(markup: string): Html {
  return new Html(markup);
}
