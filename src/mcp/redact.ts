// What an MCP server says (its stderr, an HTTP error body, an error message, a tool result) may
// repeat the secrets its entry took from the environment through `${VAR}`: a token in an
// Authorization header the server echoes, an API key in a crash message. Each is replaced by
// [redacted] before it goes anywhere (the log, the ready block, `parley mcp list`, the model).
/** Shorter values would match ordinary words and numbers in everything a server says. */
export const MIN_SECRET_CHARS = 6;
const REDACTED = '[redacted]';

export type Redact = (text: string) => string;

const unchanged: Redact = (text) => text;

function base64Forms(value: string): string[] {
  const standard = Buffer.from(value, 'utf8').toString('base64');
  const url = Buffer.from(value, 'utf8').toString('base64url');
  return [standard, standard.replace(/=+$/, ''), url];
}

/** `user:password` when the value is base64 of printable text (a Basic credential); the password too. */
function decodedCredential(value: string): string[] {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return [];
  const text = Buffer.from(value, 'base64').toString('utf8');
  if (Buffer.from(text, 'utf8').toString('base64') !== value || !/^[\x20-\x7e]+$/.test(text)) return [];
  const colon = text.indexOf(':');
  return colon > 0 ? [text, text.slice(colon + 1)] : [text];
}

/** As a URL's path and query show it once parsed (a server echoing the address it was asked for). */
function urlForms(value: string): string[] {
  const path = new URL(`http://host/${value.replace(/[?#]/g, encodeURIComponent)}`).pathname.slice(1);
  const query = new URL(`http://host/?${value.replace(/#/g, '%23')}`).search.slice(1);
  return [path, query];
}

/** The ways a secret may come back: as is, URL- or form-encoded, JSON-escaped, base64. */
function formsOf(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    ...urlForms(secret),
    JSON.stringify(secret).slice(1, -1),
    ...base64Forms(secret),
    ...decodedCredential(secret),
  ];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A function that replaces every form of every secret (of at least MIN_SECRET_CHARS) with [redacted]. */
export function redactor(secrets: readonly string[]): Redact {
  const forms = new Set(secrets.filter((s) => s.length >= MIN_SECRET_CHARS).flatMap(formsOf));
  const patterns = [...forms].filter((form) => form.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
  if (patterns.length === 0) return unchanged;
  const pattern = new RegExp(patterns.map(escapeRegExp).join('|'), 'g');
  return (text) => text.replace(pattern, REDACTED);
}
