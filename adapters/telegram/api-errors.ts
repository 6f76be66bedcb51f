// Recognising Bot API errors, and keeping the token out of everything that reaches a log: grammY's
// HttpError carries the underlying fetch error, whose message contains the request URL (and with
// it the token), so errors leave this adapter only as TelegramApiError with a clean message.
import { GrammyError, HttpError } from 'grammy';

export class TelegramApiError extends Error {
  /** Bot API error_code (400, 403, 429...), undefined for network failures. */
  readonly code: number | undefined;
  constructor(message: string, code?: number) {
    super(message);
    this.name = 'TelegramApiError';
    this.code = code;
  }
}

function description(error: unknown): string {
  return error instanceof GrammyError ? error.description : '';
}

/** "Bad Request: can't parse entities: ..." — the HTML was refused; the text may go as plain text. */
export function isEntityParseError(error: unknown): boolean {
  return /can't parse entities/i.test(description(error));
}

export function isMessageTooLong(error: unknown): boolean {
  return /message is too long|MESSAGE_TOO_LONG/i.test(description(error));
}

/** Editing to exactly the current content; nothing to do. */
export function isNotModified(error: unknown): boolean {
  return /message is not modified/i.test(description(error));
}

export function redact(text: string, token: string): string {
  return token ? text.split(token).join('<token>') : text;
}

/** One line describing the error, safe to log. */
export function safeErrorMessage(error: unknown, token: string): string {
  if (error instanceof GrammyError) return `Telegram ${error.method}: ${error.error_code} ${error.description}`;
  if (error instanceof HttpError) return redact(error.message, token);
  return redact(error instanceof Error ? error.message : String(error), token);
}

export function toSafeError(error: unknown, token: string): TelegramApiError {
  if (error instanceof TelegramApiError) return error;
  return new TelegramApiError(safeErrorMessage(error, token), error instanceof GrammyError ? error.error_code : undefined);
}
