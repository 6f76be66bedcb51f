// Downloading what people sent: GET /open-apis/im/v1/messages/:message_id/resources/:file_key
// ?type=image|file ("获取消息中的资源文件"), through the Lark SDK's HTTP client (its tenant token,
// its base URL) with `responseType: 'stream'` and the core's abort signal (the SDK's own
// im.messageResource.get takes no signal). The bot must be in the chat; the app needs one of
// im:message, im:message:readonly or im:message.history:readonly; Feishu serves resources up to
// 100 MB, not stickers, not the parts of merged-forward messages or cards (234043).
// A refusal comes back as HTTP 4xx with a JSON `{ code, msg }` body, read from the stream.
import { Readable } from 'node:stream';
import type { Client } from '@larksuiteoapi/node-sdk';
import { type Attachment, type AttachmentDownload, AttachmentFetchError, type AttachmentFetchOptions } from '../../src/core/types.ts';

/** Feishu's limit for this API. */
const FEISHU_RESOURCE_LIMIT = 100 * 1024 * 1024;
const ERROR_BODY_MAX_BYTES = 16 * 1024;

type ResourceType = 'image' | 'file';

/** The attachment ref: the message, the resource type and its key (keys hold no '/'). */
export function resourceRef(messageId: string, type: ResourceType, key: string): string {
  return `${messageId}/${type}/${key}`;
}

function parseRef(ref: string): { messageId: string; type: ResourceType; key: string } | undefined {
  const match = /^([^/]+)\/(image|file)\/([^/]+)$/.exec(ref);
  return match ? { messageId: match[1] as string, type: match[2] as ResourceType, key: match[3] as string } : undefined;
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

interface AxiosLike {
  message?: unknown;
  response?: { status?: unknown; data?: unknown };
}

/** The `{ code, msg }` of a refused download; its body is a stream (responseType 'stream'). */
async function refusalBody(data: unknown): Promise<{ code?: number; msg?: string }> {
  let text = '';
  if (data instanceof Readable) {
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of data) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      chunks.push(buffer);
      length += buffer.length;
      if (length > ERROR_BODY_MAX_BYTES) break;
    }
    data.destroy();
    text = Buffer.concat(chunks).toString('utf8');
  } else if (typeof data === 'string') text = data;
  else if (typeof data === 'object' && data !== null) text = JSON.stringify(data);
  try {
    const json = JSON.parse(text) as { code?: unknown; msg?: unknown };
    return {
      ...(typeof json.code === 'number' ? { code: json.code } : {}),
      ...(typeof json.msg === 'string' ? { msg: json.msg.slice(0, 200) } : {}),
    };
  } catch {
    return {};
  }
}

/** What a refusal means. Codes from the open platform's error tables; the message text is the fallback. */
function refusalError(status: number | undefined, code: number | undefined, msg: string | undefined): AttachmentFetchError {
  const detail = code !== undefined ? `code ${code}${msg ? ` ${msg}` : ''}` : status !== undefined ? `HTTP ${status}` : 'no answer';
  const text = msg ?? '';
  if (code === 234037 || /\b(too large|size|exceed)/i.test(text))
    return new AttachmentFetchError('too-large', `Feishu does not hand out files over ${megabytes(FEISHU_RESOURCE_LIMIT)} (${detail})`);
  if (code === 234043)
    return new AttachmentFetchError('refused', `Feishu does not hand out files inside forwarded messages or cards (${detail})`);
  if (code === 99991672 || code === 99991679)
    return new AttachmentFetchError(
      'refused',
      `the app may not read message files: enable im:message:readonly and publish a new version (${detail})`,
    );
  if (code === 230002 || code === 234004) return new AttachmentFetchError('refused', `the bot is not in this chat (${detail})`);
  if (status === 404 || code === 230011 || code === 231003 || code === 234003 || /not (found|exist)|deleted|recalled|withdrawn/i.test(text))
    return new AttachmentFetchError('not-found', `Feishu no longer has this file (${detail})`);
  return new AttachmentFetchError('unavailable', `Feishu refused the file (${detail})`);
}

export async function fetchFeishuResource(
  client: Client,
  attachment: Attachment,
  options: AttachmentFetchOptions,
): Promise<AttachmentDownload> {
  const ref = parseRef(attachment.ref);
  if (!ref)
    throw new AttachmentFetchError(
      'refused',
      attachment.kind === 'sticker' ? 'Feishu does not hand out stickers' : 'the attachment names no downloadable file',
    );
  if (attachment.size !== undefined && attachment.size > options.maxBytes)
    throw new AttachmentFetchError('too-large', `the file is ${megabytes(attachment.size)}, over the ${megabytes(options.maxBytes)} limit`);
  const url = `/open-apis/im/v1/messages/${encodeURIComponent(ref.messageId)}/resources/${encodeURIComponent(ref.key)}`;
  let answer: { data?: unknown; headers?: Record<string, unknown> };
  try {
    // client.request passes everything else to axios; $return_headers makes the SDK keep the headers.
    answer = (await client.request({
      method: 'GET',
      url,
      params: { type: ref.type },
      responseType: 'stream',
      signal: options.signal,
      $return_headers: true,
    } as Parameters<Client['request']>[0])) as typeof answer;
  } catch (error) {
    if (options.signal.aborted) throw new AttachmentFetchError('unavailable', 'the download was stopped', { cause: options.signal.reason });
    const axios = (typeof error === 'object' && error !== null ? error : {}) as AxiosLike;
    const status = typeof axios.response?.status === 'number' ? axios.response.status : undefined;
    if (status === undefined) {
      const text = error instanceof Error ? error.message : String(error);
      // The SDK's token manager says "failed to get tenant_access_token, code: N, msg: ..." (no secret in it).
      throw new AttachmentFetchError('unavailable', `could not reach Feishu for the file (${text.slice(0, 200)})`);
    }
    const { code, msg } = await refusalBody(axios.response?.data).catch(() => ({}) as { code?: number; msg?: string });
    throw refusalError(status, code, msg);
  }
  const stream = answer.data;
  if (!(stream instanceof Readable)) throw new AttachmentFetchError('unavailable', 'Feishu answered without a file');
  const headers = answer.headers ?? {};
  const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined;
  // A file is never JSON here: a JSON answer is a refusal that came with status 200.
  if (contentType?.startsWith('application/json')) {
    const { code, msg } = await refusalBody(stream);
    throw refusalError(200, code, msg);
  }
  const length = Number(headers['content-length']);
  return {
    body: Readable.toWeb(stream) as ReadableStream<Uint8Array>,
    ...(contentType ? { contentType } : {}),
    ...(headers['content-length'] !== undefined && Number.isSafeInteger(length) && length >= 0 ? { size: length } : {}),
  };
}
