// Downloading what people posted: a Discord attachment's ref is its CDN URL. Those URLs are signed
// and expire (`ex` = expiry in hex seconds, `is`, `hm`; about a day); an expired or unsigned one
// answers 404 "This content is no longer available." A URL past its `ex`, or one the CDN answers
// 404/403, is signed anew with `POST /attachments/refresh-urls` (the bot's token) and fetched once
// more. Only URLs on Discord's CDN (or on the configured API root's host, for a proxy or the test
// fake) are fetched: the bot token never goes to the CDN, and nothing else is reached.
import type { REST } from 'discord.js';
import { z } from 'zod';
import { type Attachment, type AttachmentDownload, AttachmentFetchError, type AttachmentFetchOptions } from '../../src/core/types.ts';

const CDN_ORIGINS = ['https://cdn.discordapp.com', 'https://media.discordapp.net'];

const RefreshedSchema = z.object({
  refreshed_urls: z.array(z.object({ original: z.string(), refreshed: z.string() })),
});

interface FileSource {
  rest: REST;
  apiRoot: string;
  now?: () => number;
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

function cdnUrl(ref: string, apiRoot: string): URL {
  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    throw new AttachmentFetchError('refused', 'the attachment has no usable address');
  }
  const allowed = [...CDN_ORIGINS, new URL(apiRoot).origin];
  if (!allowed.includes(url.origin)) throw new AttachmentFetchError('refused', `the attachment is not on Discord's CDN (${url.host})`);
  return url;
}

/** The URL's `ex` has passed (Discord writes it in hex seconds). */
function expired(url: URL, nowMs: number): boolean {
  const ex = Number.parseInt(url.searchParams.get('ex') ?? '', 16);
  return !Number.isFinite(ex) || ex * 1000 <= nowMs;
}

async function refreshed(rest: REST, url: URL, signal: AbortSignal, apiRoot: string): Promise<URL> {
  let answer: unknown;
  try {
    answer = await rest.post('/attachments/refresh-urls', { body: { attachment_urls: [url.href] }, signal });
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (status === 404 || status === 400)
      throw new AttachmentFetchError('expired', 'the link to the file expired and Discord would not renew it');
    throw new AttachmentFetchError(
      'unavailable',
      `could not renew the link to the file (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const parsed = RefreshedSchema.safeParse(answer);
  const fresh = parsed.success ? parsed.data.refreshed_urls[0]?.refreshed : undefined;
  if (!fresh) throw new AttachmentFetchError('expired', 'the link to the file expired and Discord would not renew it');
  return cdnUrl(fresh, apiRoot);
}

async function get(url: URL, signal: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, { signal, redirect: 'error' });
  } catch (error) {
    throw new AttachmentFetchError(
      'unavailable',
      `downloading the file from Discord failed (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

export async function fetchDiscordFile(
  source: FileSource,
  attachment: Attachment,
  options: AttachmentFetchOptions,
): Promise<AttachmentDownload> {
  const { rest, apiRoot, now = Date.now } = source;
  if (attachment.size !== undefined && attachment.size > options.maxBytes)
    throw new AttachmentFetchError('too-large', `the file is ${megabytes(attachment.size)}, over the ${megabytes(options.maxBytes)} limit`);
  let url = cdnUrl(attachment.ref, apiRoot);
  let renewed = false;
  if (expired(url, now())) {
    url = await refreshed(rest, url, options.signal, apiRoot);
    renewed = true;
  }
  let response = await get(url, options.signal);
  if ((response.status === 404 || response.status === 403) && !renewed) {
    await response.body?.cancel();
    url = await refreshed(rest, url, options.signal, apiRoot);
    response = await get(url, options.signal);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    if (response.status === 404 || response.status === 403)
      throw new AttachmentFetchError('not-found', 'Discord no longer has this file (deleted, or its link expired)');
    throw new AttachmentFetchError('unavailable', `downloading the file from Discord failed (HTTP ${response.status})`);
  }
  const length = Number(response.headers.get('content-length'));
  const contentType = response.headers.get('content-type') ?? undefined;
  return {
    body: response.body,
    ...(contentType ? { contentType } : {}),
    ...(response.headers.has('content-length') && Number.isSafeInteger(length) && length >= 0 ? { size: length } : {}),
  };
}
