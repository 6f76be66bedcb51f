// The SDK's error classes alone: the client itself (about 35 MB once loaded) loads on first use.
import * as OpenAI from 'openai/core/error';
import { ParleyError } from '../core/errors.ts';
import type { TextKey } from '../core/i18n/index.ts';

export type LlmErrorKind = 'authentication' | 'rate_limit' | 'context_length' | 'timeout' | 'aborted' | 'bad_response' | 'other';

/** What people are told, per kind (texts of the catalogue's chat area). */
const USER_MESSAGES: Record<LlmErrorKind, TextKey> = {
  authentication: 'llm.authentication',
  rate_limit: 'llm.rateLimit',
  context_length: 'llm.contextLength',
  timeout: 'llm.timeout',
  aborted: 'llm.aborted',
  bad_response: 'llm.badResponse',
  other: 'llm.other',
};

export class LlmError extends ParleyError {
  readonly kind: LlmErrorKind;
  readonly status?: number;
  constructor(kind: LlmErrorKind, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, { key: USER_MESSAGES[kind] }, { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
  }
}

const CONTEXT_PATTERN = /context[_ ]length|maximum context|too many tokens|context window|prompt is too long/i;

/** Maps whatever the SDK (or the stream) threw to one typed error. */
export function toLlmError(error: unknown, signal?: AbortSignal): LlmError {
  if (error instanceof LlmError) return error;
  if (signal?.aborted || error instanceof OpenAI.APIUserAbortError) {
    return new LlmError('aborted', 'The model request was aborted', { cause: error });
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new LlmError('timeout', 'The model request timed out', { cause: error });
  }
  if (error instanceof OpenAI.AuthenticationError || error instanceof OpenAI.PermissionDeniedError) {
    return new LlmError('authentication', `The model server refused the credentials (${error.status})`, {
      status: error.status,
      cause: error,
    });
  }
  if (error instanceof OpenAI.RateLimitError) {
    return new LlmError('rate_limit', 'The model server kept answering 429 after retries', { status: 429, cause: error });
  }
  if (error instanceof OpenAI.APIError) {
    const body = `${error.message} ${JSON.stringify(error.error ?? '')}`;
    if ((error.status === 400 || error.status === 413 || error.status === undefined) && CONTEXT_PATTERN.test(body)) {
      return new LlmError('context_length', `The request exceeds the model's context length: ${error.message}`, {
        status: error.status,
        cause: error,
      });
    }
    if (error instanceof OpenAI.APIConnectionError) {
      return new LlmError('other', `Could not connect to the model server: ${error.message}`, { cause: error });
    }
    return new LlmError('other', `The model server answered ${error.status ?? 'with an error'}: ${error.message}`, {
      status: error.status,
      cause: error,
    });
  }
  if (error instanceof SyntaxError) {
    return new LlmError('bad_response', `The model stream was malformed: ${error.message}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError('other', `The model request failed: ${message}`, { cause: error });
}
