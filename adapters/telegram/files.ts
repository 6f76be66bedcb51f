// Downloading what people sent (core.telegram.org/bots/api#getfile): getFile turns the file_id into
// a file_path, and the bytes come from <apiRoot>/file/bot<token>/<file_path>. The cloud Bot API
// serves files up to 20 MB this way; getFile answers "Bad Request: file is too big" above that.
// The download URL holds the token, so it is never put in an error or a log line.
import { type Api, GrammyError } from 'grammy';
import { type Attachment, type AttachmentDownload, AttachmentFetchError, type AttachmentFetchOptions } from '../../src/core/types.ts';
import { safeErrorMessage } from './api-errors.ts';

/** The cloud Bot API's getFile limit (a local Bot API server has none; the core's cap still applies). */
export const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

interface FileSource {
  api: Api;
  apiRoot: string;
  token: string;
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

function getFileError(error: unknown, token: string): AttachmentFetchError {
  if (error instanceof GrammyError) {
    if (/file is too big/i.test(error.description))
      return new AttachmentFetchError('too-large', `Telegram does not hand out files over ${megabytes(TELEGRAM_DOWNLOAD_LIMIT)} to bots`);
    if (/invalid file_id|wrong file_id|wrong file identifier|file not found|wrong remote file/i.test(error.description))
      return new AttachmentFetchError('not-found', 'Telegram no longer has this file');
    return new AttachmentFetchError('unavailable', `Telegram refused the file (${error.error_code} ${error.description})`);
  }
  return new AttachmentFetchError('unavailable', `could not reach Telegram for the file (${safeErrorMessage(error, token)})`);
}

export async function fetchTelegramFile(
  source: FileSource,
  attachment: Attachment,
  options: AttachmentFetchOptions,
): Promise<AttachmentDownload> {
  const { api, apiRoot, token } = source;
  if (attachment.size !== undefined && attachment.size > options.maxBytes)
    throw new AttachmentFetchError('too-large', `the file is ${megabytes(attachment.size)}, over the ${megabytes(options.maxBytes)} limit`);
  let filePath: string | undefined;
  try {
    // grammY types its signal parameter with its AbortController shim; Node's signal works as one.
    const file = await api.getFile(attachment.ref, options.signal as unknown as Parameters<Api['getFile']>[1]);
    filePath = file.file_path;
  } catch (error) {
    if (options.signal.aborted) throw new AttachmentFetchError('unavailable', 'the download was stopped', { cause: options.signal.reason });
    throw getFileError(error, token);
  }
  const segments = filePath?.split('/') ?? [];
  // The path goes after the token in the URL: nothing in it may climb out of /file/bot<token>/.
  if (!filePath || segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    throw new AttachmentFetchError('unavailable', 'Telegram gave no usable download path for the file');
  const path = segments.map(encodeURIComponent).join('/');
  let response: Response;
  try {
    response = await fetch(`${apiRoot}/file/bot${token}/${path}`, { signal: options.signal, redirect: 'error' });
  } catch (error) {
    // fetch's errors name no URL, but their causes might: only the redacted message leaves.
    throw new AttachmentFetchError('unavailable', `downloading the file from Telegram failed (${safeErrorMessage(error, token)})`);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    if (response.status === 404) throw new AttachmentFetchError('not-found', 'Telegram no longer has this file');
    throw new AttachmentFetchError('unavailable', `downloading the file from Telegram failed (HTTP ${response.status})`);
  }
  const length = Number(response.headers.get('content-length'));
  const contentType = response.headers.get('content-type') ?? undefined;
  return {
    body: response.body,
    ...(contentType ? { contentType } : {}),
    ...(Number.isSafeInteger(length) && length >= 0 && response.headers.has('content-length') ? { size: length } : {}),
  };
}
