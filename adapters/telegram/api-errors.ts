// Recognising Bot API errors, and keeping the token out of everything that reaches a log: grammY's
// HttpError carries the underlying fetch error, whose message contains the request URL (and with
// it the token), so errors leave this adapter only as TelegramApiError with a clean message. It is
// a DeliveryError, so the core knows whether to wait (429 retry_after, 5xx, network) or not.
import { GrammyError, HttpError } from 'grammy';
import { DeliveryError, type DeliveryFailureKind } from '../../src/core/delivery.ts';

/** What a Bot API failure means for a message being sent or edited. */
function deliveryKind(code: number | undefined, description: string): DeliveryFailureKind {
  if (code === undefined || code >= 500) return 'transient';
  if (code === 429) return 'rate_limited';
  if (code === 403 || /chat not found|not enough rights|have no rights/i.test(description)) return 'forbidden';
  if (/message to edit not found|message can't be edited|MESSAGE_ID_INVALID/i.test(description)) return 'gone';
  if (/message is too long|MESSAGE_TOO_LONG/i.test(description)) return 'too_large';
  return 'fatal';
}

export class TelegramApiError extends DeliveryError {
  /** Bot API error_code (400, 403, 429...), undefined for network failures. */
  readonly code: number | undefined;
  constructor(message: string, code?: number, retryAfterMs?: number) {
    super(message, deliveryKind(code, message), retryAfterMs === undefined ? {} : { retryAfterMs });
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

function redact(text: string, token: string): string {
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
  if (!(error instanceof GrammyError)) return new TelegramApiError(safeErrorMessage(error, token));
  const retryAfter = error.parameters.retry_after;
  return new TelegramApiError(safeErrorMessage(error, token), error.error_code, retryAfter === undefined ? undefined : retryAfter * 1_000);
}
