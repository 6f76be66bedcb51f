// Discord's attachment CDN, on the fake's own port. Since 2024 attachment URLs are signed and
// expire: `.../attachments/<channel>/<attachment>/<filename>?ex=<hex expiry>&is=<hex issued>&hm=<hmac>&`
// (discord/discord-api-docs#6650, "Signed Attachment CDN URLs"); a URL without them or past `ex`
// answers 404 with the text "This content is no longer available." (useapi/discord-cdn-proxy
// README, DiscordChatExporter#1266). `POST /attachments/refresh-urls` with `{ attachment_urls }`
// answers `{ refreshed_urls: [{ original, refreshed }] }` (discord-api-docs Reference, "Signed
// Attachment CDN URLs"; Oceanic's RawRefreshAttachmentURLsResponse).
import { createHmac } from 'node:crypto';

/** How long a signed URL lives (Discord: about 24 hours). */
const URL_LIFETIME_S = 24 * 60 * 60;
const GONE_TEXT = 'This content is no longer available.';

export interface CdnFile {
  channelId: string;
  attachmentId: string;
  filename: string;
  bytes: Buffer;
  contentType?: string;
}

export class FakeCdn {
  readonly #secret = 'fake-cdn-signing-key';
  readonly #files = new Map<string, CdnFile>();
  readonly #origin: () => string;
  /** Seconds added to the clock: a test moves time past every URL's expiry. */
  #skewS = 0;
  /** Paths requested, with the answer's status and any Authorization header sent (there should be none). */
  readonly requests: { path: string; status: number; authorization?: string }[] = [];

  constructor(origin: () => string) {
    this.#origin = origin;
  }

  #now(): number {
    return Math.floor(Date.now() / 1000) + this.#skewS;
  }

  #sign(path: string, ex: string, is: string): string {
    return createHmac('sha256', this.#secret).update(`${path}|${ex}|${is}`).digest('hex');
  }

  /** A signed URL for a path, valid for a day from the (skewed) clock. */
  signed(path: string): string {
    const is = this.#now().toString(16);
    const ex = (this.#now() + URL_LIFETIME_S).toString(16);
    return `${this.#origin()}${path}?ex=${ex}&is=${is}&hm=${this.#sign(path, ex, is)}&`;
  }

  add(file: CdnFile): string {
    const path = `/attachments/${file.channelId}/${file.attachmentId}/${encodeURIComponent(file.filename)}`;
    this.#files.set(path, file);
    return path;
  }

  /** Injected failure: refresh-urls renews nothing (answers an empty list) from now on. */
  renewsNothing = false;

  /** Every URL handed out so far is past its expiry. */
  expireAll(): void {
    this.#skewS += URL_LIFETIME_S + 60;
  }

  /** The attachment's message was deleted: the file is gone from the CDN. */
  delete(attachmentId: string): void {
    for (const [path, file] of this.#files) if (file.attachmentId === attachmentId) this.#files.delete(path);
  }

  /** GET on the CDN: the bytes, or 404 "This content is no longer available." */
  serve(
    pathname: string,
    query: URLSearchParams,
    authorization?: string,
  ): { status: number; headers: Record<string, string>; body: Buffer } {
    const ex = query.get('ex') ?? '';
    const is = query.get('is') ?? '';
    const valid = ex !== '' && query.get('hm') === this.#sign(pathname, ex, is) && Number.parseInt(ex, 16) > this.#now();
    const file = valid ? this.#files.get(pathname) : undefined;
    const status = file ? 200 : 404;
    this.requests.push({ path: pathname, status, ...(authorization !== undefined ? { authorization } : {}) });
    if (!file) return { status, headers: { 'content-type': 'text/plain' }, body: Buffer.from(GONE_TEXT) };
    return {
      status,
      headers: { 'content-type': file.contentType ?? 'application/octet-stream', 'content-length': String(file.bytes.length) },
      body: file.bytes,
    };
  }

  /** POST /attachments/refresh-urls: a fresh signature for each URL on this CDN. */
  refresh(body: unknown): { refreshed_urls: { original: string; refreshed: string }[] } {
    const urls = (body as { attachment_urls?: unknown } | undefined)?.attachment_urls;
    const list = Array.isArray(urls) && !this.renewsNothing ? urls.filter((u): u is string => typeof u === 'string') : [];
    return {
      refreshed_urls: list.flatMap((original) => {
        let parsed: URL;
        try {
          parsed = new URL(original);
        } catch {
          return [];
        }
        if (parsed.origin !== this.#origin() || !parsed.pathname.startsWith('/attachments/')) return [];
        return [{ original, refreshed: this.signed(parsed.pathname) }];
      }),
    };
  }
}
