// What the model sees of a response body. Only as many bytes as the character budget can need are
// read off the wire (an endless or huge download is cut off, not buffered); a body with NUL bytes
// is binary and is described instead of shown (PostgreSQL could not even store it).
import type { Response } from 'undici';

export async function bodyForModel(response: Response, maxChars: number): Promise<string> {
  const limit = maxChars * 4; // UTF-8 needs at most 4 bytes per character
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
      if (size > limit) {
        cut = true;
        await reader.cancel();
        break;
      }
    }
  }
  const bytes = Buffer.concat(chunks);
  if (bytes.includes(0)) return `[binary body: ${cut ? `more than ${limit}` : size} bytes, not shown]`;
  const text = new TextDecoder().decode(bytes.subarray(0, limit));
  if (cut) return `${text.slice(0, maxChars)}\n[body truncated: more than ${limit} bytes]`;
  if (text.length > maxChars) return `${text.slice(0, maxChars)}\n[body truncated: ${text.length} characters in all]`;
  return text;
}
